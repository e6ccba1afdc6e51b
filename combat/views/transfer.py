"""An encounter exported as a JSON file by its referee, and a file imported as a new one."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from combat import table
from combat.access import grant_referee, referee_for
from combat.forms import EncounterForm
from combat.transfer import (
    ENCOUNTER_FILE,
    MAX_BYTES,
    FileKind,
    Refused,
    export_json,
    import_encounter,
)
from combat.views.pages import my_encounters


@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The encounter as a file to download: the referee's only (a player gets 403)."""
    viewer = referee_for(request, slug)
    encounter = viewer.encounter
    # The file carries the proofs of every server die: the open period's seed is revealed
    # for it, and a new one sealed for the rolls to come (combat.table.dice).
    with transaction.atomic():
        if table.reveal(encounter, only_if_rolled=True) is not None:
            table.touch(viewer)
    name = slugify(encounter.name) or "encounter"
    return json_download(export_json(encounter), f"fray-{name}.json")


def json_download(text: str, filename: str) -> HttpResponse:
    """A Fray file to download, kept by no cache on the way (it holds the referee's secrets:
    hidden combatants, their hit points)."""
    response = HttpResponse(text, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


class CappedUpload(FileUploadHandler):
    """Reads an upload only up to what a Fray file may weigh: a bigger one is dropped as it
    arrives (the rest of the request is read and thrown away), never stored in memory or on
    disk, and the view says it was too large."""

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        if start + len(raw_data) > MAX_BYTES:
            self.request.upload_too_large = True
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler (Django's own) makes the file


def capped_upload(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that reads a file upload no further than ``CappedUpload`` lets it: the cap is
    put in place before the CSRF check, which reads the form (and so the upload)."""
    protected = csrf_protect(view)

    @csrf_exempt  # checked by ``protected``, once the cap is in place
    @wraps(view)
    def capped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        request.upload_handlers.insert(0, CappedUpload(request))
        return protected(request, *args, **kwargs)

    return capped


def read_upload(request: HttpRequest, kind: FileKind) -> bytes:
    """The uploaded file's bytes (``file``), or Refused, said as ``kind`` says it."""
    upload = request.FILES.get("file")
    if getattr(request, "upload_too_large", False) or (
        upload is not None and upload.size is not None and upload.size > MAX_BYTES
    ):
        raise Refused(kind.too_large)
    if upload is None:
        raise Refused(kind.missing)
    return upload.read(MAX_BYTES + 1)


@capped_upload
@require_POST
def import_file(request: HttpRequest) -> HttpResponse:
    """A new encounter from an uploaded file, refereed by this browser; a refused file
    comes back to the home page with what was wrong, and nothing written."""
    try:
        encounter = import_encounter(read_upload(request, ENCOUNTER_FILE))
    except Refused as refused:
        context = {
            "form": EncounterForm(),
            "mine": my_encounters(request),
            "import_error": refused.message,
        }
        return render(request, "combat/home.html", context, status=400)
    grant_referee(request.session, encounter)
    return redirect("encounter", encounter.slug)
