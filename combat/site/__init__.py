"""Serving: the settings, the URLconf, the ASGI application, ``host`` and ``serve``'s server, the
request handler and the middleware. The top layer: it may import anything below it, and nothing
imports it (Django finds it through ``DJANGO_SETTINGS_MODULE`` and ``ROOT_URLCONF``).
"""
