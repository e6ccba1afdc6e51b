"""An encounter exported as a JSON file by its referee, and a file imported as a new one."""

from __future__ import annotations

from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from ..access import grant_referee, referee_for
from ..forms import EncounterForm
from ..transfer import MAX_BYTES, Refused, export_json, import_encounter
from .pages import _my_encounters


@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The encounter as a file to download: the referee's only (a player gets 403)."""
    encounter = referee_for(request, slug).encounter
    response = HttpResponse(export_json(encounter), content_type="application/json")
    name = slugify(encounter.name) or "encounter"
    response["Content-Disposition"] = f'attachment; filename="fray-{name}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


class CappedUpload(FileUploadHandler):
    """Reads an upload only up to what an encounter file may weigh: a bigger one is dropped
    as it arrives (the rest of the request is read and thrown away), never stored in memory
    or on disk, and the view says it was too large."""

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        if start + len(raw_data) > MAX_BYTES:
            self.request.upload_too_large = True
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler (Django's own) makes the file


@csrf_exempt  # checked below, once the cap is in place: the check reads the upload
@require_POST
def import_file(request: HttpRequest) -> HttpResponse:
    request.upload_handlers.insert(0, CappedUpload(request))
    return _import_file(request)


@csrf_protect
def _import_file(request: HttpRequest) -> HttpResponse:
    """A new encounter from an uploaded file, refereed by this browser; a refused file
    comes back to the home page with what was wrong, and nothing written."""
    upload = request.FILES.get("file")
    try:
        if getattr(request, "upload_too_large", False) or (
            upload is not None and upload.size is not None and upload.size > MAX_BYTES
        ):
            raise Refused(gettext("The file is too large: an encounter file is at most 1 MB."))
        if upload is None:
            raise Refused(gettext("Choose an encounter file (.json) to import."))
        encounter = import_encounter(upload.read(MAX_BYTES + 1))
    except Refused as refused:
        context = {
            "form": EncounterForm(),
            "mine": _my_encounters(request),
            "import_error": refused.message,
        }
        return render(request, "combat/home.html", context, status=400)
    grant_referee(request.session, encounter)
    return redirect("encounter", encounter.slug)
