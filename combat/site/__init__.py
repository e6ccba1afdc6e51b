"""Serving: the settings, the URLconf, the ASGI application, ``host`` and ``serve``'s server, the
request handler and the middleware. The top layer: it may import anything below it, and nothing
imports it (Django finds it through ``DJANGO_SETTINGS_MODULE`` and ``ROOT_URLCONF``).

How a server starts
-------------------

``host`` and ``serve`` run the same server (``serving``): Daphne, with ``DEBUG`` off whatever
the environment says, serving pages, static files and websockets in one process. There is no
``collectstatic`` step: the server collects the static files into its data folder by itself
when they changed since the last start (a fresh clone, a ``git pull``, a package upgrade),
which adds a few tenths of a second to that start and a few milliseconds to the others. They
get hashed names (``fray.3f2a….css``), brotli and gzip copies, and a year of browser caching,
so a phone downloads them once. Pages are sent gzip-compressed too, with Django's padding
against BREACH (pages carry CSRF tokens).

Before it listens a server imports every view, works out the URL patterns and compiles every
template (under a second), makes its channel layer (``serving.settle_memory``) and opens the
live parts' database connections (``serving.connect_ahead``), so the first pages and sockets
after a start (a restart, with every phone reconnecting at once) cost what the later ones do,
and a fresh worker's first sockets wait for neither. It listens with room for 1024 connects at
once (Twisted's 50 dropped part of a crowd, retried a second later).

Requests run whole on a kept thread, which keeps its database connection (``handler``:
Django's own ASGI handler gave every request a new thread, so a new connection, and switched
threads for every middleware): one thread on SQLite, where requests take turns (it writes one
at a time, and threads waiting for its lock sleep rather than queue), four on PostgreSQL.

Plain HTTP and ``check --deploy``
---------------------------------

``manage.py check --deploy`` reports no issues. Fray is served over plain HTTP on a LAN, so
four HTTPS-only checks are silenced on purpose in ``SILENCED_SYSTEM_CHECKS``: ``security.W004``
(HSTS), ``security.W008`` (SSL redirect), ``security.W012`` and ``security.W016`` (secure-only
session and CSRF cookies, which a browser would never send back over HTTP);
``tests/combat/test_settings.py`` fails if anything else is reported. The other security
headers (nosniff, ``Referrer-Policy: same-origin``, frame denial, a Content-Security-Policy
without inline scripts) are on; ``Cross-Origin-Opener-Policy`` is sent over HTTPS only, since
browsers ignore it over HTTP and log an error on every page (``middleware``). Behind a proxy
that terminates HTTPS and says so (``serve --proxy-headers``), HTTPS answers alone make every
cookie Secure and carry HSTS (``middleware.HttpsOnlyMiddleware``): Django's own settings for
those would apply to plain HTTP too, hence the silenced checks. Encounter pages
and every capability link (referee, join and display), their redirects and refusals included,
are sent with ``Cache-Control: no-store``. A page may open websockets to its own origin only
(``connect-src``). Websocket frames get no CSRF protection, so a websocket is accepted only
from a page of the same origin (``middleware.SameOriginWebsocket``): same scheme, host and port
as the request, and the host in ``ALLOWED_HOSTS``, which is never ``*``.
"""
