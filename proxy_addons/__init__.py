"""mitmproxy addons for detour, one class per concern; detour_proxy.py lists them in order."""
