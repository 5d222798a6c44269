"""Rate limits for the volunteer flow: one mechanism for the pages and the API.

What is counted, per study (``settings.RATE_LIMITS``, overridden per study by
``Study.rate_limits`` from the study file; rates as ``studies.ratelimits`` reads them):

- ``enrol``: new participations per *browser*; ``enrol_address``: per client address,
  all browsers together: a much higher ceiling, so a class of sixty behind one school
  NAT address enrols at once while one client hammering enrolment is stopped;
- ``resume``: resume-code attempts per browser, ``resume_address`` per address (codes
  cannot be guessed by brute force);
- ``answer``: answers per participant, site-wide (no person answers sixty a minute).

A *browser* is told by a first-party cookie (``shiping-b``, signed, random) that every
volunteer page sets; a client without it (a script, the API) counts as one browser per
address. The per-browser limit is checked first, and only a request it lets through is
counted against the address, so one abusive browser cannot use up its classmates' share.

The *client address* is ``REMOTE_ADDR``, or behind ``NUM_PROXIES`` trusted proxies the
address the nearest of them saw (the N-th entry of ``X-Forwarded-For`` from the right:
entries further left are the client's own say and can be forged); IPv6 clients are
counted by their /64 network, which one client controls whole.

Counting is a fixed window per limit: ``cache.incr`` (``cache.add`` for a window's
first request) on the shared cache (Redis in production), each one atomic, so parallel
requests on any number of workers never let more through than the limit (40 parallel
enrolments against a limit of 30 admit exactly 30). At a window's edge a client can get
up to twice the count in a short burst: the limits are set with that in mind.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from rest_framework.throttling import BaseThrottle

from studies.models import Study
from studies.ratelimits import Rate, parse_rate

BROWSER_COOKIE = "shiping-b"
BROWSER_SALT = "shiping.browser"
BROWSER_AGE = 365 * 24 * 3600
#: The per-browser scope of each limit and the per-address ceiling over it.
ADDRESS_SCOPE = {"enrol": "enrol_address", "resume": "resume_address"}
#: The limiter's clock (the tests pin it inside a window).
clock = time.time


def client_address(request: Any) -> str:
    """The client's address as the trusted proxies saw it (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = int(getattr(settings, "NUM_PROXIES", 0) or 0)
    if proxies > 0:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        if hops:
            candidate = hops[-min(proxies, len(hops))]
            try:
                ipaddress.ip_address(candidate)
            except ValueError:
                pass  # not an address: the proxy did not write it, so keep REMOTE_ADDR
            else:
                return candidate
    return remote


def _address_group(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Network | None:
    """Who an address stands for: an IPv4 address itself (an IPv4-mapped IPv6 one too),
    an IPv6 address its /64 (one household or phone is given a whole /64, so counting
    its addresses one by one would give it unlimited tries); None if not an address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        return ipaddress.IPv6Network(f"{ip}/64", strict=False)
    return ip


def _address_key(address: str) -> str:
    group = _address_group(address)
    return (address or "unknown") if group is None else str(group)


def login_throttle_address(request: Any) -> str:
    """The admin login throttle's client address (django-axes' AXES_CLIENT_IP_CALLABLE):
    the client's IPv4 address, or the first address of its IPv6 /64, so every address
    of one /64 counts as one client (as for the rate limits)."""
    address = client_address(request)
    group = _address_group(address)
    if isinstance(group, ipaddress.IPv6Network):
        return str(group.network_address)
    return address if group is None else str(group)


def browser_id(request: Any) -> str | None:
    value = request.get_signed_cookie(BROWSER_COOKIE, default=None, salt=BROWSER_SALT)
    return value if isinstance(value, str) and value else None


def device_digest(request: HttpRequest) -> str:
    """A digest of the browser's cookie (empty without one): what the quality check of
    duplicate enrolments compares; the cookie itself is stored nowhere."""
    found = browser_id(request)
    if not found:
        return ""
    return hashlib.sha256(f"{BROWSER_SALT}:{found}".encode()).hexdigest()[:32]


def address_digest(request: HttpRequest) -> str:
    """A keyed digest of the client's address group (an IPv4 address, an IPv6 /64): an
    HMAC with the site's secret, so the stored value tells enrolments from one address
    apart without being the address or reversible by trying every address. Empty when
    the request has no address."""
    address = client_address(request)
    if not address:
        return ""
    key = f"shiping.address:{settings.SECRET_KEY}".encode()
    return hmac.new(key, _address_key(address).encode(), hashlib.sha256).hexdigest()[:32]


def remember_browser(request: HttpRequest, response: HttpResponse) -> None:
    """Give the browser its cookie (once): what tells classmates behind one address apart."""
    if browser_id(request) is None:
        response.set_signed_cookie(
            BROWSER_COOKIE,
            secrets.token_urlsafe(12),
            salt=BROWSER_SALT,
            max_age=BROWSER_AGE,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )


def rate_for(scope: str, study: Study | None = None) -> Rate | None:
    """The rate of ``scope``: the study's own if it sets one, else the site's."""
    own = (study.rate_limits or {}) if study is not None else {}
    text = own[scope] if scope in own else settings.RATE_LIMITS.get(scope)
    try:
        return parse_rate(text)
    except ValueError:  # a bad value set by hand in the admin: the site's rate applies
        return parse_rate(settings.RATE_LIMITS.get(scope))


def hit(key: str, rate: Rate, now: float | None = None) -> int | None:
    """Count one request against ``rate`` under ``key``: None when it is within the rate,
    else the seconds until the window ends. Atomic on any shared cache."""
    now = clock() if now is None else now
    window = int(now // rate.seconds)
    full = f"shiping:rl:{key}:{rate.seconds}:{window}"
    # Within a window the counter exists, so one increment counts the request (with Redis
    # Django's incr is EXISTS + INCRBY: two round trips where add-then-incr took three).
    # Only the window's first request creates it; if another created it meanwhile, add
    # refuses and the increment counts this one.
    try:
        count = cache.incr(full)
    except ValueError:  # no counter for this window yet (or evicted)
        count = 1 if cache.add(full, 1, timeout=rate.seconds + 5) else cache.incr(full)
    if count <= rate.count:
        return None
    return max(1, math.ceil((window + 1) * rate.seconds - now))


def wait_seconds(request: Any, scope: str, study: Study) -> int | None:
    """Count an enrolment or resume attempt for ``study``: None when it may proceed,
    else how many seconds to wait (per browser first, then the address's ceiling)."""
    address = _address_key(client_address(request))
    browser = browser_id(request)
    ident = f"b:{browser}" if browser else f"a:{address}"
    rate = rate_for(scope, study)
    if rate is not None and (wait := hit(f"{scope}:{study.pk}:{ident}", rate)):
        return wait
    ceiling = rate_for(ADDRESS_SCOPE[scope], study)
    if ceiling is not None and (
        wait := hit(f"{ADDRESS_SCOPE[scope]}:{study.pk}:{address}", ceiling)
    ):
        return wait
    return None


def answer_wait(participant_id: int) -> int | None:
    """Count an answer of one participant against the site's ``answer`` rate."""
    rate = rate_for("answer")
    return hit(f"answer:{participant_id}", rate) if rate is not None else None


class AnswerThrottle(BaseThrottle):
    """The API's answer limit, per participant (the token's), as the pages count it."""

    def __init__(self) -> None:
        self._wait: int | None = None

    def allow_request(self, request: Any, view: Any) -> bool:
        participant = getattr(request, "auth", None)
        pk = getattr(participant, "pk", None)
        if pk is None:
            return True  # not authenticated: refused by the view's permission anyway
        self._wait = answer_wait(int(pk))
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
