"""The sentences the diagnosis rules write, in English and Russian.

A rule decides from typed facts (planner/conclude/diagnosis.py); this module only holds its words,
one `Said` a sentence part, so a Russian question gets its hypotheses, its conclusion and
its next steps in Russian. What a source said (an event message, a log line, a metric
name) is filled in as the source wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from policy.language import Bilingual, Language, phrase, pick


class Said(StrEnum):
    APP_VS_EDGE = "app_vs_edge"
    EDGE_RETURNED = "edge_returned"
    EDGE_LOG_SHOWS = "edge_log_shows"
    NODE_TROUBLE = "node_trouble"
    NODE_HOSTS = "node_hosts"
    NODE_CONSISTENT = "node_consistent"
    NODE_NO_KNOB = "node_no_knob"
    NODE_CHECK = "node_check"
    OOM = "oom"
    OOM_LIMIT = "oom_limit"
    OOM_CHECK = "oom_check"
    POD = "pod"
    POD_IMAGE = "pod_image"
    POD_IN = "pod_in"
    POD_LOG = "pod_log"
    POD_AFTER = "pod_after"
    EVICTED = "evicted"
    LIVENESS = "liveness"
    LIVENESS_KILLS = "liveness_kills"
    NO_MESSAGE = "no_message"
    PORT_UNSERVED = "port_unserved"
    PULL_SECRET = "pull_secret"
    PULL_SECRETS = "pull_secrets"
    K8S_REPORTS = "k8s_reports"
    CHANGE_JOB = "change_job"
    CHANGE_AUDIT = "change_audit"
    CHANGE_AT = "change_at"
    CHANGE_MOUNTED = "change_mounted"
    QUOTA = "quota"
    JOB = "job"
    JOB_NOT_RUN = "job_not_run"
    JOB_STARTED_BY = "job_started_by"
    JOB_NO_USER = "job_no_user"
    JOB_STATUS = "job_status"
    JOB_OF = "job_of"
    JOB_VERSION = "job_version"
    CLUSTER_IMAGES = "cluster_images"
    COMMIT_AUTHOR = "commit_author"
    CLUSTER_CHANGE = "cluster_change"
    HPA_AT_MAX = "hpa_at_max"
    HPA_WHILE = "hpa_while"
    HPA_CHECK = "hpa_check"


_TEXT: dict[Said, Bilingual] = {
    Said.APP_VS_EDGE: (
        "The application answered {app}; the edge proxy returned {edge} because {text}.",
        "Приложение ответило {app}; edge-прокси вернул {edge}, потому что {text}.",
    ),
    Said.EDGE_RETURNED: (
        "The edge proxy returned {edge}: {text}.",
        "Edge-прокси вернул {edge}: {text}.",
    ),
    Said.EDGE_LOG_SHOWS: ("The edge error log shows that {text}.", "По edge error log: {text}."),
    Said.NODE_TROUBLE: (
        "Node {node} shows network trouble ({metrics}) far above its peers",
        "Узел {node} показывает сетевые проблемы ({metrics}) намного сильнее соседей",
    ),
    Said.NODE_HOSTS: ("; it hosts pods of {services}", "; на нём pod'ы {services}"),
    Said.NODE_CONSISTENT: (
        ", consistent with the edge errors ({classes})",
        ", что согласуется с ошибками edge ({classes})",
    ),
    Said.NODE_NO_KNOB: (
        ". No specific kernel setting is established by the evidence.",
        ". Конкретная настройка ядра фактами не установлена.",
    ),
    Said.NODE_CHECK: (
        "Check {node}'s NIC, softnet backlog and the hypervisor it runs on before changing any "
        "setting.",
        "Прежде чем менять настройки, проверьте NIC узла {node}, softnet backlog и его гипервизор.",
    ),
    Said.OOM: (
        "Container {container} of {pod} was killed for exceeding its memory limit{limit} "
        "(OOMKilled, exit code {code}).",
        "Контейнер {container} pod'а {pod} убит за превышение лимита памяти{limit} "
        "(OOMKilled, код выхода {code}).",
    ),
    Said.OOM_LIMIT: (" of {limit}", " {limit}"),
    Said.OOM_CHECK: (
        "Compare memory usage with the limit over a day before raising it; look for a leak if "
        "usage only grows.",
        "Прежде чем поднимать лимит, сравните с ним потребление памяти за сутки; если оно "
        "только растёт, ищите утечку.",
    ),
    Said.POD: ("Pod {pod}", "Pod {pod}"),
    Said.POD_IMAGE: (" (image {image})", " (образ {image})"),
    Said.POD_IN: (" is in {reason}", " в состоянии {reason}"),
    Said.POD_LOG: (". Its log says: {lines}", ". В его логе: {lines}"),
    Said.POD_AFTER: (". It started failing after {change}", ". Сбои начались после {change}"),
    Said.LIVENESS: (
        "The kubelet restarts {container} of {pod} because its liveness probe fails: {message}",
        "kubelet перезапускает {container} pod'а {pod}, потому что не проходит liveness-проба: "
        "{message}",
    ),
    Said.LIVENESS_KILLS: (
        " ({pods} killed this way, last exit code {code})",
        " (так убиты: {pods}, последний код выхода {code})",
    ),
    Said.EVICTED: (
        "the kubelet evicted {pods}, e.g. {pod}: {message}",
        "kubelet вытеснил {pods}, например {pod}: {message}",
    ),
    Said.NO_MESSAGE: ("no message", "без сообщения"),
    Said.PULL_SECRET: (
        "; the pods pull with the secret {secrets}: the credential the registry refused",
        "; pod'ы скачивают образ с секретом {secrets}: эти учётные данные реестр отклонил",
    ),
    Said.PULL_SECRETS: (
        "; the pods pull with the secrets {secrets}: the credential the registry refused",
        "; pod'ы скачивают образ с секретами {secrets}: эти учётные данные реестр отклонил",
    ),
    Said.PORT_UNSERVED: (
        "Service {service} sends its traffic to port {target}, which no container of its "
        "pods declares or listens on ({declared}): every request to it is refused",
        "Service {service} направляет трафик на порт {target}, который не объявляет и не "
        "слушает ни один контейнер его pod'ов ({declared}): каждый запрос к нему отклоняется",
    ),
    Said.K8S_REPORTS: (
        "Kubernetes reports {reason} for {object}: {message}",
        "Kubernetes сообщает {reason} для {object}: {message}",
    ),
    Said.CHANGE_JOB: ("release job {job} #{id}", "релизного задания {job} #{id}"),
    Said.CHANGE_AUDIT: (
        "{actor} did {verb} on {what}{at}{mounted}",
        "того, как {actor} выполнил {verb} для {what}{at}{mounted}",
    ),
    Said.CHANGE_AT: (" at {at}", " в {at}"),
    Said.CHANGE_MOUNTED: (", which the pods of {by} mount", ", который монтируют pod'ы {by}"),
    Said.QUOTA: (
        "Quota {quota} is at {ratio} for {resource} ({used} of {hard}).",
        "Квота {quota} заполнена на {ratio} по {resource} ({used} из {hard}).",
    ),
    Said.JOB: (
        "job {name} #{id} {of}(pipeline {pipeline}{version}) ",
        "задание {name} #{id} {of}(pipeline {pipeline}{version}) ",
    ),
    Said.JOB_OF: ("of {project} ", "проекта {project} "),
    Said.JOB_VERSION: (", version {version}", ", версия {version}"),
    Said.CLUSTER_IMAGES: (" (image {images})", " (образ {images})"),
    Said.JOB_NOT_RUN: ("has not run", "не запускалось"),
    Said.JOB_STARTED_BY: ("was started by {user}", "запустил {user}"),
    Said.JOB_NO_USER: ("has no user in GitLab's answer", "без пользователя в ответе GitLab"),
    Said.JOB_STATUS: (", status {status}", ", статус {status}"),
    Said.COMMIT_AUTHOR: ("commit {sha} was authored by {author}", "автор коммита {sha} — {author}"),
    Said.CLUSTER_CHANGE: (
        "in the cluster {actor} did {verb} on {resource} {name}",
        "в кластере {actor} выполнил {verb} для {resource} {name}",
    ),
    Said.HPA_AT_MAX: (
        "{target} cannot scale out: its HorizontalPodAutoscaler {name} is at its maximum of "
        "{max} replicas",
        "{target} не может масштабироваться: его HorizontalPodAutoscaler {name} на максимуме "
        "в {max} реплик",
    ),
    Said.HPA_WHILE: (" while {metrics}", ", при этом {metrics}"),
    Said.HPA_CHECK: (
        "Compare the request rate with the capacity of the maximum replicas before raising "
        "maxReplicas; check the nodes have room for more pods.",
        "Прежде чем поднимать maxReplicas, сравните частоту запросов с тем, что выдерживает "
        "максимум реплик; проверьте, есть ли на узлах место для новых pod'ов.",
    ),
}


def said(part: Said, language: Language, /, **fields: object) -> str:
    return phrase(_TEXT[part], language, **fields)


@dataclass(frozen=True)
class EdgeText:
    """What an edge error class means, and what to check for it, in both languages."""

    meaning: Bilingual
    checks: list[Bilingual]

    def text(self, language: Language) -> str:
        return pick(self.meaning, language)

    def recommendations(self, language: Language) -> list[str]:
        return [pick(c, language) for c in self.checks]


_NEAR_NODES: Bilingual = (
    "Compare with the network health of the nodes behind the upstream addresses.",
    "Сравните с сетевым здоровьем узлов за адресами upstream.",
)

EDGE_CLASS_TEXT: dict[str, EdgeText] = {
    "too_big_header": EdgeText(
        (
            "the response headers did not fit the edge proxy's buffer "
            '("upstream sent too big header while reading response header from upstream")',
            "заголовки ответа не поместились в буфер edge-прокси "
            '("upstream sent too big header while reading response header from upstream")',
        ),
        [
            (
                "Inspect the full response header set of this path (Location, Set-Cookie) and "
                "trim it.",
                "Проверьте полный набор заголовков ответа на этом пути (Location, Set-Cookie) и "
                "сократите его.",
            ),
            (
                "Raise proxy_buffer_size / proxy_buffers only after measuring the real header "
                "size.",
                "Увеличивайте proxy_buffer_size / proxy_buffers только после замера реального "
                "размера заголовков.",
            ),
        ],
    ),
    "timeout": EdgeText(
        (
            "the upstream did not answer in time (upstream timed out)",
            "upstream не ответил вовремя (upstream timed out)",
        ),
        [
            (
                "Check the backend's latency and slow requests for this path around that time.",
                "Проверьте задержку backend и медленные запросы на этом пути около этого времени.",
            )
        ],
    ),
    "connect_timeout": EdgeText(
        (
            "the proxy could not even connect to the upstream in time (connect timeout): the "
            "pod or the node behind that address did not answer",
            "прокси не смог даже вовремя подключиться к upstream (connect timeout): pod или "
            "узел за этим адресом не ответил",
        ),
        [
            (
                "Check the pods behind the failing upstream addresses and the state of their "
                "nodes.",
                "Проверьте pod'ы за сбойными адресами upstream и состояние их узлов.",
            )
        ],
    ),
    "connection_refused": EdgeText(
        (
            "nothing accepted connections at the upstream address (connection refused)",
            "по адресу upstream никто не принимал соединения (connection refused)",
        ),
        [
            (
                "Check whether the pod behind that address was listening (readiness, restarts).",
                "Проверьте, слушал ли pod за этим адресом (readiness, перезапуски).",
            )
        ],
    ),
    "connection_reset": EdgeText(
        (
            "the upstream reset the connection (connection reset by peer)",
            "upstream сбросил соединение (connection reset by peer)",
        ),
        [_NEAR_NODES],
    ),
    "premature_close": EdgeText(
        (
            "the upstream closed the connection before sending a full response",
            "upstream закрыл соединение, не отправив ответ целиком",
        ),
        [_NEAR_NODES],
    ),
    "invalid_header": EdgeText(
        (
            "the upstream sent a response header the proxy could not parse",
            "upstream прислал заголовок ответа, который прокси не смог разобрать",
        ),
        [
            (
                "Inspect the raw response headers of the application for this path.",
                "Проверьте сырые заголовки ответа приложения на этом пути.",
            )
        ],
    ),
    "upstream_tls": EdgeText(
        (
            "the TLS handshake or certificate check towards the upstream failed",
            "не удалось TLS-рукопожатие или проверка сертификата upstream",
        ),
        [
            (
                "Check the upstream certificate chain and the proxy's TLS settings towards it.",
                "Проверьте цепочку сертификатов upstream и настройки TLS прокси к нему.",
            )
        ],
    ),
    "no_live_upstreams": EdgeText(
        (
            "the proxy had no live upstream left (all marked failed)",
            "у прокси не осталось живых upstream (no live upstreams: все помечены сбойными)",
        ),
        [
            (
                "Check why every upstream failed just before (refused, timeouts).",
                "Проверьте, почему незадолго до этого сбоили все upstream (refused, таймауты).",
            )
        ],
    ),
}
