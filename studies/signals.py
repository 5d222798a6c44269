"""Signals that let later apps react to changes in studies without a reverse import."""

from django.dispatch import Signal

# Sent with ``item_ids`` after items' answer keys changed, so responses get re-graded.
items_rekeyed = Signal()

# Sent with ``study`` and ``item_ids`` after a load created or changed items (inside the
# load's transaction), so later apps can derive data from them (e.g. rule scores).
items_loaded = Signal()
