# expect: proxy=ok rewrite=missed
# Perl's HTTP::Tiny: honours https_proxy, and has no rewrite prelude.
use strict;
use warnings;
use HTTP::Tiny;

my $http = HTTP::Tiny->new(timeout => 5, verify_SSL => 0);
my $r = $http->post_form("https://slack.com/api/chat.postMessage", { channel => "general", text => "perl" },
                         { headers => { Authorization => "Bearer xoxb-1" } });
exit($r->{success} && $r->{content} =~ /"ok":true/ ? 0 : 1);
