"""Background jobs: loads, rule scoring, exports and reports, run by Celery.

``services.job_submit`` records a :class:`scoring.models.Job` and hands it to Celery
(in-process at once when no broker is configured); ``services.job_run`` runs it with a
progress callback that the loaders' loops report to; ``runners`` maps each kind of job
to the function that does the work (add a kind with one ``@runner(kind)`` function).
"""
