"""Schemathesis hooks for `run.sh` (loaded through SCHEMATHESIS_HOOKS).

What schemathesis cannot know from the document alone, and nothing else:

- It reuses generated header values across cases, so one `Idempotency-Key` would meet another
  body and answer the documented 422 `idempotency_key_reused`. Each call gets a fresh key
  instead (only where the generated key is schema-valid, so that a deliberately invalid key of
  a negative case still reaches the server as generated).
- A cursor is opaque and tamper-evident (an HMAC over the list it belongs to): every string
  the schema allows except the ones this server signed is a 400 `invalid_request` with
  `param: "cursor"`. That one answer to a schema-valid request is expected.
- Four 422s of the contract depend on the server's state, not on the request's shape, so no
  schema can rule them out: a `repo_path` that is not a readable git repository on this
  server, a `feature_id` that does not resolve in the workspace's repository (or a run in a
  workspace without `repo_path`), a drift check in a workspace without one, and a token's `rate_limit` above the
  creating token's quota or the platform's configured ceiling. Each is expected only on its
  operation and with its `param`. So are the repository's: a `repo_url` (or a publish
  target's `url`) whose host is an address the operator's policy refuses or that the URL
  standard's parser refuses (no pattern states it), a workspace given both a `repo_path` and a
  `repo_url` (a field may be set by the request or already on the workspace), and a
  `default_branch` on a workspace that has no `repo_url`.
- Two 422s depend on the server's clock, which no schema can state: a token's `expires_at`
  must lie between now and 366 days ahead, and a recovery's `since` must not be in the
  future. Each is expected only on its operation and with its `param`.
- Deleting a workspace is a soft delete (contract: `active` becomes false, every GET in it
  still answers, every write is 409). A read after the DELETE that answers the workspace with
  `active: false`, or anything in it, is the contract, not a use after free.
- A workspace's publish target exists only once `PUT` sets it: its `GET` or `DELETE` right
  after the workspace's create is the documented 404 `not_found` (as GitHub's Pages site
  answers), not a lost resource (ST302).
- Every dictionary entry (schemathesis.toml) is a value the fixture made and the server
  accepts: the workspace, its ids, its repository path, its feature. Schemathesis 4.32.5
  sometimes classifies one of them as schema-violating (its stateful phase, where it cannot
  resolve the parameter's schema) and then reports the 2xx of a case whose only "invalid"
  part is that entry as ST201. Such a finding names the entry as the invalid component and is
  dropped; an ST201 with a real mutation still fails the run.

Any other refusal of a schema-valid request, and any other finding, still fails the run.
"""

import json
import os
import uuid

import schemathesis

KEYED_METHODS = {"POST", "PATCH"}
IDEMPOTENCY_KEY = "Idempotency-Key"


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() not in KEYED_METHODS or not case.headers:
        return
    key = case.headers.get(IDEMPOTENCY_KEY)
    if isinstance(key, str) and 1 <= len(key) <= 255:
        case.headers[IDEMPOTENCY_KEY] = f"st-{uuid.uuid4()}"


def _error(response):
    try:
        body = json.loads(response.content)
    except (ValueError, TypeError):
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


# (operation, `param`) of the contract's state-dependent 422s.
STATE_DEPENDENT_422 = {
    ("POST /v1/workspaces", "repo_path"),
    ("POST /v1/workspaces", "repo_url"),
    ("POST /v1/workspaces", "default_branch"),
    ("PATCH /v1/workspaces/{id}", "repo_path"),
    ("PATCH /v1/workspaces/{id}", "repo_url"),
    ("PATCH /v1/workspaces/{id}", "default_branch"),
    ("POST /v1/workspaces/{ws}/runs", "feature_id"),
    ("POST /v1/workspaces/{ws}/tokens", "rate_limit"),
    ("POST /v1/workspaces/{ws}/runs", "repo_path"),
    ("POST /v1/workspaces/{ws}/drift-check", "repo_path"),
    ("POST /v1/articles/{id}/regenerate", "repo_path"),
    ("POST /v1/workspaces/{ws}/tokens", "expires_at"),
    ("POST /v1/webhooks/{id}/recover", "since"),
    # The forge API root must pass the outbound address policy (like a webhook's url).
    ("PUT /v1/workspaces/{id}/repository/forge-token", "api_url"),
    # The docs repository's url: the same policy and URL rules as a workspace's repo_url.
    ("PUT /v1/workspaces/{id}/publish-target", "url"),
}


def _expected(case, response):
    error = _error(response)
    if response.status_code == 400:
        return (
            bool(case.query and case.query.get("cursor"))
            and error.get("type") == "invalid_request"
            and error.get("param") == "cursor"
        )
    if response.status_code == 422:
        operation = f"{case.method.upper()} {case.path}"
        return (
            error.get("type") == "validation_failed"
            and (operation, error.get("param")) in STATE_DEPENDENT_422
        )
    return False


def _soft_deleted(failure, response):
    """A read in a workspace deleted before it, the workspace still saying it is inactive."""
    deleted = getattr(failure, "free", "")
    if not deleted.startswith("DELETE /v1/workspaces/"):
        return False
    workspace = deleted.removeprefix("DELETE /v1/workspaces/")
    try:
        body = json.loads(response.content)
    except (ValueError, TypeError):
        # Not JSON (the workspace's export archive): something in the workspace, not the
        # workspace itself.
        return True
    if isinstance(body, dict) and body.get("id") == workspace:
        return body.get("active") is False
    return True


# Singletons of a workspace that exist only once set (GitHub's `GET …/pages` answers 404 the
# same way): schemathesis links them to the workspace's create and expects them to exist.
SET_LATER = {
    "GET /v1/workspaces/{id}/publish-target",
    "DELETE /v1/workspaces/{id}/publish-target",
}


def _not_set_yet(case, response):
    """The 404 of a workspace's singleton that nothing has set yet."""
    operation = f"{case.method.upper()} {case.path}"
    return (
        operation in SET_LATER
        and response.status_code == 404
        and _error(response).get("type") == "not_found"
    )


def _fixture_entry_only(failure):
    """An ST201 whose only invalid component is one of the fixture's dictionary entries."""
    message = failure.message.lower()
    return (
        "invalid component:" in message
        and "dictionary `" in message
        and "` entry violates the schema" in message
    )


def _keep(failure, case, response):
    if response is None:
        return True
    if failure.code == "ST201":
        return not _fixture_entry_only(failure)
    if failure.code == "ST202":
        return not _expected(case, response)
    if failure.code == "ST301":
        return not _soft_deleted(failure, response)
    if failure.code == "ST302":
        return not _not_set_yet(case, response)
    return True


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure but the expected answers above (listed in SCHEMATHESIS_DROPPED)."""
    keep = _keep(failure, case, response)
    dropped = os.environ.get("SCHEMATHESIS_DROPPED")
    if not keep and dropped:
        with open(dropped, "a", encoding="utf-8") as out:
            error = _error(response)
            out.write(
                f"{failure.code} {case.method.upper()} {case.path} {response.status_code} "
                f"{error.get('type')} {error.get('param')}\n"
            )
    return keep
