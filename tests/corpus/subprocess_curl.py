# expect: proxy=ok rewrite=ok
import json
import subprocess

out = subprocess.run(["curl", "-sS", "-H", "Authorization: Bearer xoxb-1", "https://slack.com/api/chat.postMessage",
                      "-d", "channel=general", "-d", "text=subprocess_curl"], capture_output=True, text=True, check=True)
assert json.loads(out.stdout)["ok"]
