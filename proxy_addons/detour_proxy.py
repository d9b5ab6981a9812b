"""The detour proxy's addons, in order: `python -m proxy_addons` runs mitmdump with them
(as the stack does), and they also load as a script into a mitmdump of your own:

    mitmdump -s proxy_addons/detour_proxy.py --set connection_strategy=lazy \
        --set detour_replica=127.0.0.1:8000 --set detour_signing_key=$DETOUR_HOME/signing.key \
        --set detour_audit_dir=$DETOUR_HOME/audit --set detour_policies_dir=$DETOUR_HOME/policies \
        --set detour_secrets_dir=$DETOUR_HOME/secrets

Order matters: the fast path (fast_path.py) takes each regular-mode connection first, carrying
plain replica-bound tunnels itself with the addons' own decisions and handing mitmproxy the rest;
the environment is known before its policy is, both before routing decides,
the limits look at what routing let through, a model call goes to its target (or a budget's
or a recording's answer) and what goes out to an allowed host is scanned for credentials before secrets go into what may carry them and
no answer from their hosts brings a value back (a model answer is metered as it passes); faults
hit what those let through;
a routed request is answered in this process when the replicas live here, events due are
delivered into sandboxes, and the audit log records what the others decided.
"""

from proxy_addons.answer_scrubbing import AnswerScrubber
from proxy_addons.answered_bodies import AnsweredBodies
from proxy_addons.audit_recorder import AuditRecorder
from proxy_addons.egress_watch import EgressWatch
from proxy_addons.env_auth import EnvAuth
from proxy_addons.event_delivery import EventDelivery
from proxy_addons.fast_path import FastPath
from proxy_addons.faults import Faults
from proxy_addons.mcp_calls import McpCalls
from proxy_addons.held_services import HeldServices
from proxy_addons.model_budgets import ModelBudgets
from proxy_addons.model_replay import ModelReplay
from proxy_addons.model_routes import ModelMeter, ModelRoutes
from proxy_addons.model_translator import ModelTranslator
from proxy_addons.policies import Policies
from proxy_addons.rate_limits import RateLimits
from proxy_addons.replicas_in_process import InProcessReplicas
from proxy_addons.request_limits import RequestLimits
from proxy_addons.routing import Router
from proxy_addons.secret_injection import SecretInjector
from proxy_addons.shared_ports import SharedPorts
from proxy_addons.upstream_guard import UpstreamGuard

addons = [AnsweredBodies(), SharedPorts(), FastPath(), EnvAuth(), Policies(), HeldServices(), Router(), RequestLimits(), RateLimits(),
          ModelRoutes(), ModelBudgets(), ModelReplay(), ModelTranslator(), EgressWatch(), SecretInjector(), AnswerScrubber(),
          ModelMeter(), McpCalls(), Faults(), InProcessReplicas(), EventDelivery(), UpstreamGuard(), AuditRecorder()]
