"""A message that asks the bot to change something ("rollback billing to 4.1.0",
"перезапусти воркер в prod"). The bot never changes anything: the answer says so
first, names the step a person would take, and the investigation goes on as for "why".

What is read is the grammar of a request, not a list of incidents: an imperative verb of
changing a workload (English at the start of a clause or after "please" / "can you";
Russian imperative forms, which differ from the past tense "откатил" and the noun
"рестарт"). The closed set of such verbs is `ChangeAction`.
"""

from __future__ import annotations

import re
from enum import StrEnum


class ChangeAction(StrEnum):
    ROLLBACK = "rollback"
    RESTART = "restart"
    SCALE = "scale"
    DELETE = "delete"
    DEPLOY = "deploy"  # deploy, apply, sync, patch: through the pipeline


# a request: "please / can you <verb>" anywhere, or a bare imperative opening a clause
# that is not a question ("restart count of x?" asks; "restart x" or "restart x now." asks
# for a change)
_POLITE = r"\b(?:please|pls|can you|could you|would you|go ahead and)\s+"
_CLAUSE = r"(?:^|[.!?;]\s*)"
_VERBS: dict[ChangeAction, tuple[str, str]] = {  # (English at a clause start, Russian)
    ChangeAction.ROLLBACK: (r"roll\s*back|revert|undo", r"откати(?:те)?|откатни(?:те)?"),
    ChangeAction.RESTART: (
        r"restart|reboot|bounce",
        r"перезапусти(?:те)?|рестартани(?:те)?|рестартни(?:те)?|перезагрузи(?:те)?",
    ),
    ChangeAction.SCALE: (
        r"scale(?:\s+(?:up|down|out|in))?",
        r"масштабируй(?:те)?|отскейль(?:те)?|увеличь(?:те)?|уменьши(?:те)?",
    ),
    ChangeAction.DELETE: (r"delete|remove|kill|drain|cordon", r"удали(?:те)?|убей(?:те)?"),
    ChangeAction.DEPLOY: (
        r"re-?deploy",
        r"задеплой(?:те)?|передеплой(?:те)?|выкати(?:те)?|примени(?:те)?|синхронизируй(?:те)?",
    ),
}
_ASKED = [
    (
        action,
        re.compile(rf"(?i){_POLITE}(?:{english})\b"),
        re.compile(rf"(?i){_CLAUSE}(?:{english})\b[^?.!;]*(?:[.!;]|$)"),
        re.compile(rf"(?i)(?<![\w-])(?:{russian})(?![\w-])"),
    )
    for action, (english, russian) in _VERBS.items()
]


# "to 2.3.1", "на v5.3.2", "to version 1.4": the version a rollback or a deploy is asked for
_VERSION = re.compile(
    r"(?i)\b(?:to|на|до)\s+(?:version\s+|версию\s+|верси[июя]\s+)?(v?\d+(?:\.\d+){1,3})\b"
)


def version_asked(message: str) -> str | None:
    """The version the message asks to go to, if it names one."""
    found = _VERSION.search(message)
    return found.group(1) if found else None


def change_asked(message: str) -> ChangeAction | None:
    """The change the message asks the bot to make, if it asks for one."""
    text = message.strip()
    for action, polite, bare, russian in _ASKED:
        if polite.search(text) or bare.search(text) or russian.search(text):
            return action
    return None


def human_step(
    action: ChangeAction,
    *,
    env: str | None,
    namespace: str | None,
    name: str | None,
    version: str | None = None,
) -> str:
    """The command a person would run for `action` on the object (kubectl, in the
    environment's context); a placeholder where the question names no object."""
    target = f"deployment/{name}" if name else "deployment/<name>"
    where = " ".join(
        part
        for part in (f"--context {env}" if env else "", f"-n {namespace}" if namespace else "")
        if part
    )
    kubectl = f"kubectl {where} " if where else "kubectl "
    match action:
        case ChangeAction.ROLLBACK:
            if version:
                return (
                    f"{kubectl}rollout undo {target} --to-revision=<the revision running "
                    f"{version}, from kubectl rollout history {target}>"
                )
            return f"{kubectl}rollout undo {target} (kubectl rollout history shows the revisions)"
        case ChangeAction.RESTART:
            return f"{kubectl}rollout restart {target}"
        case ChangeAction.SCALE:
            return f"{kubectl}scale {target} --replicas=<N>"
        case ChangeAction.DELETE:
            return f"{kubectl}delete <kind>/<name> (after checking what owns it)"
        case ChangeAction.DEPLOY:
            what = f" of {version}" if version else ""
            return f"the service's deployment pipeline (CI/CD){what}, as its runbook says"
