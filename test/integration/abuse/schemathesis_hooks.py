"""schemathesis hooks for the admin API, loaded through schemathesis.toml at the repository root.

positive_data_acceptance (ST202) fails when the API refuses a request that matches its OpenAPI document.
A few rules cannot be written in JSON schema: an id that names nothing, a CIDR with host bits set, a
filter that does not compile, a limit counted in bytes. Each operation lists the rules it applies beyond
its schema in `x-rules-beyond-schema`, with the error_code it answers when one is broken. This check
takes the built-in one's place: a refusal with one of those codes is the document keeping its word; any
other refusal of a schema-valid request fails exactly as it did.
"""

import schemathesis
from schemathesis.checks import CHECKS
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance as builtin_positive_data_acceptance

RULES = "x-rules-beyond-schema"


def _documented_codes(case):
    rules = case.operation.definition.raw.get(RULES) or []
    return {rule.get("error_code") for rule in rules if isinstance(rule, dict)}


def _error_code(response):
    try:
        body = response.json()
    except Exception:
        return None
    return body.get("error_code") if isinstance(body, dict) else None


CHECKS.unregister("positive_data_acceptance")


@schemathesis.check
def positive_data_acceptance(ctx, response, case):
    try:
        return builtin_positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if 400 <= response.status_code < 500 and _error_code(response) in _documented_codes(case):
            return None
        raise
