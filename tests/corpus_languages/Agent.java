// Post a message, read it back, try a host that is not allowed: JDK's HttpClient, unmodified.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class Agent {
    public static void main(String[] args) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String token = System.getenv().getOrDefault("SLACK_TOKEN", "xoxb-1");
        HttpRequest post = HttpRequest.newBuilder(URI.create("https://slack.com/api/chat.postMessage"))
            .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"channel\": \"general\", \"text\": \"hello from java\"}")).build();
        String posted = client.send(post, HttpResponse.BodyHandlers.ofString()).body();
        String channel = posted.replaceAll("(?s).*\"channel\":\\s*\"([^\"]+)\".*", "$1");
        HttpRequest read = HttpRequest.newBuilder(URI.create("https://slack.com/api/conversations.history?channel=" + channel))
            .header("Authorization", "Bearer " + token).build();
        String history = client.send(read, HttpResponse.BodyHandlers.ofString()).body();
        int denied = client.send(HttpRequest.newBuilder(URI.create("https://denied.example/")).build(),
                                 HttpResponse.BodyHandlers.ofString()).statusCode();
        System.out.println("posted=" + posted.contains("\"ok\":true") + " read=" + history.contains("hello from java")
                           + " denied=" + denied);
    }
}
