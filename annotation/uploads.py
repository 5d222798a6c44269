"""One entry point for every kind of upload, shared by the admin page and the API."""

from __future__ import annotations

from typing import IO, Any

from annotation.loading.llm_outputs import llm_outputs_load
from annotation.loading.responses import responses_load
from studies.loading.pool import pool_load
from studies.loading.problems import Summary
from studies.loading.readers import Source
from studies.loading.study import study_load
from studies.models import ImportLog, Study


def upload_load(*, kind: str, name: str, stream: IO[bytes], study: Study | None,
                dry_run: bool, user: Any = None) -> Summary:  # fmt: skip
    """Run the loader for ``kind``; raises LoadError (nothing written) on any problem."""
    source = Source.from_upload(name, stream)
    if kind == ImportLog.Kind.STUDY:
        return study_load(source, dry_run=dry_run, user=user)
    loaders = {
        ImportLog.Kind.POOL: pool_load,
        ImportLog.Kind.LLM_OUTPUTS: llm_outputs_load,
        ImportLog.Kind.RESPONSES: responses_load,
    }
    return loaders[kind](source, study=study, dry_run=dry_run, user=user)  # type: ignore[operator]
