<?php
// Post a message, read it back, try a host that is not allowed: PHP's curl extension, unmodified.
$token = getenv("SLACK_TOKEN") ?: "xoxb-1";

function call(string $url, ?array $form, string $token): array {
    $handle = curl_init($url);
    curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
    curl_setopt($handle, CURLOPT_HTTPHEADER, ["Authorization: Bearer $token"]);
    if ($form !== null) {
        curl_setopt($handle, CURLOPT_POSTFIELDS, http_build_query($form));
    }
    $body = curl_exec($handle);
    if ($body === false) {
        fwrite(STDERR, "error: " . curl_error($handle) . "\n");
        exit(1);
    }
    return [curl_getinfo($handle, CURLINFO_RESPONSE_CODE), $body];
}

[, $posted] = call("https://slack.com/api/chat.postMessage", ["channel" => "general", "text" => "hello from php"], $token);
$answer = json_decode($posted, true);
[, $history] = call("https://slack.com/api/conversations.history?channel=" . $answer["channel"], null, $token);
[$denied] = call("https://denied.example/", null, $token);
printf("posted=%s read=%s denied=%d\n", $answer["ok"] ? "true" : "false",
       str_contains($history, "hello from php") ? "true" : "false", $denied);
