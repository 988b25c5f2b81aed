"""The review app (``ragcard review serve PACKET``): a small server-rendered web app in which
each reviewer, by their own link, rates a packet one item at a time.

Blindness is enforced here, on the server: the app reads only the packet folder (the manifest,
the items, its own ``reviews.sqlite``) — never the key, the run or the scores — and renders
only the fields of :class:`~ragcard.review.packet.PacketItem` a reviewer needs. Restricted
text is not in the packet folder (:func:`ragcard.review.packet.seal`): the app shows it only
when started with the sealed file (``sealed``), and then a restricted passage's text, or an
answer or expected answer that quotes restricted passages, only to reviewers whose role may
read every passage involved; the others see a note saying what is withheld and why. Pages are
rendered with Jinja2's autoescaping; styles and the small script are served by the app itself
(no CDN: it works offline), under a Content-Security-Policy that allows nothing else. Every
change is saved as it is made (the script posts it; without the script, the form's button
does), so a reviewer can stop and resume at any time.

Needs the ``review`` extra: ``pip install 'ragcard[review]'``.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ragcard.errors import MissingExtraError
from ragcard.inputs.corpus import Corpus
from ragcard.review.answers import SOURCES_KEY, PersonAnswer, load_sources
from ragcard.review.grading import GradingLabel
from ragcard.review.packet import Packet, PacketItem, load_packet, load_sealed
from ragcard.review.ratings import Rating
from ragcard.review.store import STORE_FILE, Reviewer, ReviewStore

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["SECURITY_HEADERS", "create_app"]

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # a reviewer's link is their key: never send it on
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
_STATIC = {"app.css": "text/css", "app.js": "text/javascript"}
#: The largest save the app reads (a comment is at most 20,000 characters): a bigger body is
#: refused with a message the page shows, never half-read.
MAX_BODY = 1024 * 1024
TOO_LARGE = (
    "not saved: the form is over 1 MB (a comment may hold up to 20,000 characters): shorten "
    "it and save again"
)


def _imports() -> Any:
    try:
        import jinja2
        import starlette.applications
        import starlette.responses
        import starlette.routing
    except ImportError as error:
        raise MissingExtraError(error.name or "starlette", "review", "The review app") from None
    return jinja2, starlette


class _Pages:
    """Everything the routes need: the packet, the store, the templates."""

    def __init__(
        self, packet: Packet, store: ReviewStore, sealed: Mapping[str, Mapping[str, Any]]
    ) -> None:
        jinja2, _ = _imports()
        self.packet = packet
        self.sealed = sealed
        self.store = store
        self.items = list(packet.items)
        self.index = {item.id: n for n, item in enumerate(self.items)}
        self.sources: Corpus | None = None
        self._readable: set[str] = set()
        self._index: Any = None
        if packet.manifest.kind == "answer":
            texts = sealed.get(SOURCES_KEY, {}).get("passages") or {}
            self.sources = load_sources(packet, texts)
            self._readable = {p.id for p in self.sources if not p.access or p.id in texts}
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("ragcard.review", "templates"),
            autoescape=True,  # every value is escaped, whatever the template's name
            undefined=jinja2.StrictUndefined,
        )

    def render(self, name: str, status: int = 200, **context: Any) -> Response:
        from starlette.responses import HTMLResponse

        context.setdefault("manifest", self.packet.manifest)
        html = self.env.get_template(name).render(**context)
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def not_found(self) -> Response:
        return self.render("error.html", 404, message="This link is not valid.")

    def saved(self, reviewer: Reviewer) -> dict[str, dict[str, Any]]:
        return {a.item: a.data for a in self.store.answers(reviewer.name)}

    def search(self, query: str, item: PacketItem, reviewer: Reviewer) -> list[dict[str, Any]]:
        """The sources matching ``query`` that both the asker and the reviewer may see."""
        if self.sources is None or not query:
            return []
        import numpy as np

        from ragcard.reference.index import PassageIndex

        passages = list(self.sources)
        if self._index is None:
            self._index = PassageIndex(passages)
        mask = np.array([self._may_read(p, item, reviewer) for p in passages])
        hits = self._index.search(self._index.prepare(query), mask, 8, "keyword")
        return [self.source(hit.passage.id, item, reviewer) for hit in hits]

    def _may_read(self, passage: Any, item: PacketItem, reviewer: Reviewer) -> bool:
        """Both the asker and the reviewer may read it, and its text is here (not sealed)."""
        return bool(passage.visible_to(item.asker) and passage.visible_to(reviewer.role)
                    and passage.id in self._readable)  # fmt: skip

    def source(self, passage_id: str, item: PacketItem, reviewer: Reviewer) -> dict[str, Any]:
        p = self.sources.get(passage_id) if self.sources is not None else None
        if p is None:
            return {"id": passage_id, "doc": None, "section": None, "text": None}
        text = p.text if self._may_read(p, item, reviewer) else None
        return {"id": p.id, "doc": p.doc, "section": p.section, "text": text}

    def visible(self, item: PacketItem, reviewer: Reviewer) -> list[dict[str, Any]]:
        """The item's passages as this reviewer may see them."""
        shown = []
        texts = self.sealed.get(item.id, {}).get("passages") or {}
        for p in item.passages:
            allowed = not p.access or reviewer.role in p.access
            text = p.text if not p.access else texts.get(p.id)
            note = p.note
            if allowed and p.access and text is None:
                note = f"Restricted passage (roles: {', '.join(p.access)}): {_NOT_SEALED}"
            shown.append({
                "id": p.id, "doc": p.doc, "section": p.section, "date": p.date, "tier": p.tier,
                "text": text if allowed else None, "restricted": not allowed,
                "roles": p.access, "note": note,
            })  # fmt: skip
        return shown

    def shown(self, item: PacketItem, reviewer: Reviewer) -> PacketItem:
        """The item with what it withholds restored where this reviewer may read it, and a
        note naming what is withheld from them otherwise."""
        if not item.sealed:
            return item
        record = self.sealed.get(item.id, {})
        update: dict[str, Any] = {}
        for field, roles in item.sealed.items():
            what = field.replace("_", " ")
            if reviewer.role not in roles:
                update[field] = (
                    f"[{what} withheld: it quotes restricted passages that your role "
                    f"({reviewer.role}) may not read (roles: {', '.join(roles) or 'none'}); "
                    "leave this item unrated]"
                )
            elif field in record:
                update[field] = record[field]
                if field == "answer" and "sentences" in record:
                    update["sentences"] = record["sentences"]
            else:
                update[field] = f"[{what} withheld: {_NOT_SEALED}]"
        return item.model_copy(update=update)


#: Why a reviewer with the role does not see restricted text either.
_NOT_SEALED = (
    "its text is sealed apart from the packet, and the app was started without it: restart "
    "it with `ragcard review serve PACKET --sealed FILE` (the .sealed.jsonl file beside the key)"
)


def _reviewer(pages: _Pages, request: Request) -> Reviewer | None:
    return pages.store.reviewer_by_token(str(request.path_params["token"]))


def _progress(pages: _Pages, saved: Mapping[str, Any]) -> dict[str, int]:
    done = sum(1 for item in pages.items if _complete(pages, saved.get(item.id)))
    return {"rated": done, "total": len(pages.items)}


def _complete(pages: _Pages, data: Mapping[str, Any] | None) -> bool:
    if not data:
        return False
    if pages.packet.manifest.kind == "grading":
        return bool(data.get("correctness"))
    if pages.packet.manifest.kind == "answer":
        return bool(str(data.get("answer", "")).strip() or data.get("abstained"))
    return bool(data.get("rating"))


def _parse(
    pages: _Pages, item: PacketItem, reviewer: Reviewer, form: Mapping[str, str], cited: list[str]
) -> dict[str, Any]:
    """The form as the record the store keeps (validated: a bad value is refused)."""
    comment = form.get("comment") or ""  # (over 20,000 characters: refused, never cut)
    if pages.packet.manifest.kind == "answer":
        known = [
            c for c in dict.fromkeys(cited) if pages.sources is not None and c in pages.sources
        ]
        typed = PersonAnswer.model_validate({"answer": form.get("answer") or "", "cited": known,
                                             "abstained": bool(form.get("abstained")),
                                             "comment": comment})  # fmt: skip
        return typed.model_dump()
    if pages.packet.manifest.kind == "grading":
        support = {
            key.removeprefix("support-"): value
            for key, value in form.items()
            if key.startswith("support-") and value
        }
        label = GradingLabel.model_validate({"correctness": form.get("grade") or None,
                                             "support": support, "comment": comment})  # fmt: skip
        return label.model_dump(exclude_none=True)
    asked_voice = pages.packet.manifest.ask_voice  # (what the packet never asks is not kept)
    asked_attribution = any(p.tier == "B" for p in item.passages)
    rating = Rating.model_validate({
        "item": item.id, "reviewer": reviewer.name, "rating": form.get("rating") or "accurate",
        "voice": (form.get("voice") or None) if asked_voice else None,
        "attributed": (form.get("attributed") or None) if asked_attribution else None,
        "comment": comment,
    })  # fmt: skip
    data = rating.model_dump(exclude={"item", "reviewer"}, exclude_none=True)
    if not form.get("rating"):
        data.pop("rating")  # voice or a comment before the rating: kept, not yet rated
    return data


#: Form field → the stored field it sets: a save that does not carry a field (a stale tab, an
#: empty or partial POST) leaves what is stored for it as it was.
_FIELDS = {"rating": "rating", "voice": "voice", "attributed": "attributed",
           "comment": "comment", "grade": "correctness", "answer": "answer"}  # fmt: skip


def _kept(
    stored: Mapping[str, Any], data: dict[str, Any], form: Mapping[str, str]
) -> dict[str, Any]:
    """``data`` with each stored field the form did not carry kept: a rating is changed only
    by a save that carries one."""
    kept = dict(data)
    for name, field in _FIELDS.items():
        # (text a person may clear is kept only when the form lacks it altogether)
        absent = name not in form if name in ("comment", "answer") else not form.get(name)
        if absent and field in stored:
            kept[field] = stored[field]
    if "support" in stored and not any(k.startswith("support-") for k in form):
        kept["support"] = stored["support"]
    if "answer" not in form and "abstained" in stored:
        kept["abstained"] = stored["abstained"]
        kept["cited"] = stored.get("cited", [])
    return kept


async def _read_form(request: Request) -> Any:
    """The posted form, or (the message, the status) when it is over :data:`MAX_BODY` or
    cannot be parsed: said before reading when the length is declared, else by the parser."""
    from starlette.exceptions import HTTPException

    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        return TOO_LARGE, 413
    try:
        return await request.form(max_part_size=MAX_BODY)
    except HTTPException as error:  # the parser's own limits ("Field exceeded …")
        detail = str(error.detail)
        if "exceeded" in detail or "size" in detail:
            return TOO_LARGE, 413
        return f"not saved: {detail}", 400


def create_app(packet_dir: Path, sealed: Path | None = None) -> Starlette:
    """The review app of a packet folder (its ``reviews.sqlite`` is created on first use);
    ``sealed``: the packet's sealed file, whose restricted text reviewers with the role may
    then read (checked against the manifest)."""
    _jinja2, starlette = _imports()
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    packet = load_packet(packet_dir)
    texts = load_sealed(sealed, packet) if sealed is not None else {}
    pages = _Pages(packet, ReviewStore(packet.folder / STORE_FILE), texts)

    async def landing(request: Request) -> Response:
        return pages.render("error.html", 200, message="Open the link you were given to start.")

    async def home(request: Request) -> Response:
        reviewer = _reviewer(pages, request)
        if reviewer is None:
            return pages.not_found()
        saved = pages.saved(reviewer)
        token = request.path_params["token"]
        first = next((i.id for i in pages.items if not _complete(pages, saved.get(i.id))), None)
        rows = [{"id": i.id, "done": _complete(pages, saved.get(i.id))} for i in pages.items]
        return pages.render("home.html", reviewer=reviewer, token=token, rows=rows,
                            progress=_progress(pages, saved), first=first)  # fmt: skip

    async def item_page(request: Request) -> Response:
        reviewer = _reviewer(pages, request)
        item_id = str(request.path_params["item"])
        if reviewer is None or item_id not in pages.index:
            return pages.not_found()
        saved = pages.saved(reviewer)
        n = pages.index[item_id]
        item = pages.items[n]
        passages = pages.visible(item, reviewer)
        item = pages.shown(item, reviewer)
        query = str(request.query_params.get("q", "")).strip()[:500]
        answer = saved.get(item_id, {})
        return pages.render(
            "item.html",
            reviewer=reviewer,
            token=request.path_params["token"],
            item=item,
            passages=passages,
            number=n + 1,
            previous=pages.items[n - 1].id if n else None,
            next=pages.items[n + 1].id if n + 1 < len(pages.items) else None,
            answer=answer,
            progress=_progress(pages, saved),
            ask_attribution=any(p.tier == "B" for p in item.passages),
            error=None,
            query=query,
            hits=pages.search(query, item, reviewer),
            cited=[pages.source(pid, item, reviewer) for pid in answer.get("cited", [])],
        )

    async def save(request: Request) -> Response:
        reviewer = _reviewer(pages, request)
        item_id = str(request.path_params["item"])
        if reviewer is None or item_id not in pages.index:
            return pages.not_found()
        item = pages.items[pages.index[item_id]]
        autosave = bool(request.headers.get("x-autosave"))

        def refused(message: str, status: int) -> Response:
            if autosave:  # the script shows the message beside the form
                body = {"saved": False, "error": message}
                return JSONResponse(body, status, headers=SECURITY_HEADERS)
            return pages.render("error.html", status, message=message)

        submitted = await _read_form(request)
        if isinstance(submitted, tuple):
            return refused(*submitted)
        form = {k: str(v) for k, v in submitted.items()}
        cited = [str(v) for v in submitted.getlist("cite")]
        try:
            data = _kept(pages.saved(reviewer).get(item_id, {}), _parse(pages, item, reviewer,
                                                                        form, cited), form)
        except ValidationError as error:
            message = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()
            )
            return JSONResponse({"saved": False, "error": message}, 422, headers=SECURITY_HEADERS)
        pages.store.save(item_id, reviewer.name, data)
        progress = _progress(pages, pages.saved(reviewer))
        if autosave:
            return JSONResponse({"saved": True, **progress}, headers=SECURITY_HEADERS)
        n = pages.index[item_id]
        token = request.path_params["token"]
        target = (
            f"/r/{token}/item/{pages.items[n + 1].id}"
            if n + 1 < len(pages.items)
            else f"/r/{token}"
        )
        return RedirectResponse(target, 303, headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        name = str(request.path_params["name"])
        if name not in _STATIC:
            return pages.not_found()
        body = resources.files("ragcard.review").joinpath("static").joinpath(name).read_bytes()
        return Response(body, media_type=_STATIC[name], headers=SECURITY_HEADERS)

    routes = [
        Route("/", landing),
        Route("/static/{name}", static),
        Route("/r/{token}", home),
        Route("/r/{token}/item/{item}", item_page, methods=["GET"]),
        Route("/r/{token}/item/{item}", save, methods=["POST"]),
    ]
    return starlette.applications.Starlette(routes=routes)  # type: ignore[no-any-return]
