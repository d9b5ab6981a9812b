# Post a message, read it back, try a host that is not allowed: Net::HTTP, unmodified.
require "json"
require "net/http"
require "uri"

TOKEN = ENV.fetch("SLACK_TOKEN", "xoxb-1")

def call(request, uri)
  request["Authorization"] = "Bearer #{TOKEN}"
  Net::HTTP.start(uri.host, uri.port, use_ssl: true) { |http| http.request(request) }
end

uri = URI("https://slack.com/api/chat.postMessage")
post = Net::HTTP::Post.new(uri)
post.set_form_data("channel" => "general", "text" => "hello from ruby")
posted = JSON.parse(call(post, uri).body)
history_uri = URI("https://slack.com/api/conversations.history?channel=#{posted["channel"]}")
history = call(Net::HTTP::Get.new(history_uri), history_uri).body
denied_uri = URI("https://denied.example/")
denied = call(Net::HTTP::Get.new(denied_uri), denied_uri).code
puts "posted=#{posted["ok"]} read=#{history.include?("hello from ruby")} denied=#{denied}"
