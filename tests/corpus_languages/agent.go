// Post a message, read it back, try a host that is not allowed: net/http, unmodified.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func call(request *http.Request) (int, string) {
	token := os.Getenv("SLACK_TOKEN")
	if token == "" {
		token = "xoxb-1"
	}
	request.Header.Set("Authorization", "Bearer "+token)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	return response.StatusCode, string(body)
}

func main() {
	form := url.Values{"channel": {"general"}, "text": {"hello from go"}}
	post, _ := http.NewRequest("POST", "https://slack.com/api/chat.postMessage", strings.NewReader(form.Encode()))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	_, posted := call(post)
	var answer struct {
		Ok      bool   `json:"ok"`
		Channel string `json:"channel"`
	}
	json.Unmarshal([]byte(posted), &answer)
	read, _ := http.NewRequest("GET", "https://slack.com/api/conversations.history?channel="+answer.Channel, nil)
	_, history := call(read)
	other, _ := http.NewRequest("GET", "https://denied.example/", nil)
	denied, _ := call(other)
	fmt.Printf("posted=%v read=%v denied=%d\n", answer.Ok, strings.Contains(history, "hello from go"), denied)
}
