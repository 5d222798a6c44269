"""The researchers' REST API (/api/v1/): studies, items, responses, report and exports.

Session or token authentication (``manage.py drf_create_token USERNAME``). Every study
endpoint answers only for studies the user may see (``research.access``): a researcher
their shared studies, a superuser every study; anything else is a 404.
"""
