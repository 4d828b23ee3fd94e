{{- define "infrabot.name" -}}{{ .Release.Name }}{{- end -}}

{{- define "infrabot.labels" -}}
app.kubernetes.io/name: infrabot
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "infrabot.selector" -}}
app.kubernetes.io/name: infrabot
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "infrabot.serviceAccount" -}}
{{- if .Values.serviceAccount.create -}}{{ .Release.Name }}{{- else -}}{{ required "serviceAccount.name: set it when serviceAccount.create is false" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{/* One clear message for the first value that must be set. */}}
{{- define "infrabot.validate" -}}
{{- if not .Values.config.environments -}}
{{- fail "config.environments is empty: set at least one environment (its kubernetes, metrics and logs sources) in your values; see values.yaml and docs/configuration.md" -}}
{{- end -}}
{{- if and .Values.config.mattermost (not .Values.existingSecret) -}}
{{- fail "existingSecret: config.mattermost is set, so name the existing Secret that holds INFRABOT_MM_TOKEN" -}}
{{- end -}}
{{- if or (not .Values.metrics.port) (eq (int .Values.metrics.port) (int .Values.web.port)) -}}
{{- fail "metrics.port: set the port /metrics is served on, other than web.port, so /metrics stays off the chat's port" -}}
{{- end -}}
{{- $np := .Values.networkPolicy -}}
{{- if $np.enabled -}}
{{- range $key := list "ingressFrom" "metricsFrom" -}}
{{- range $peer := (get $np $key | default list) -}}
{{- if or (not (kindIs "map" $peer)) (empty $peer) -}}
{{- fail (printf "networkPolicy.%s: a peer is empty (or not a mapping); name pods (podSelector), namespaces (namespaceSelector) or addresses (ipBlock)" $key) -}}
{{- end -}}
{{- if and (hasKey $peer "namespaceSelector") (empty $peer.namespaceSelector) (empty $peer.podSelector) -}}
{{- fail (printf "networkPolicy.%s: a peer with an empty namespaceSelector and no podSelector admits every pod of the cluster; name the namespaces (networkPolicy.%s) or the pods" $key (ternary "ingressNamespaces" "metricsNamespaces" (eq $key "ingressFrom"))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $identity := (default (dict) (default (dict) .Values.config.web).identity) -}}
{{- if and (eq (toString $identity.mode) "proxy") (not $identity.trusted_proxies) -}}
{{- fail "config.web.identity.trusted_proxies: mode is proxy, so name the addresses the authenticating proxy connects from (its pods' CIDR, or 127.0.0.1/32 for a sidecar); without them any client could send the user header" -}}
{{- end -}}
{{- if and (eq (toString $identity.mode) "proxy") $np.enabled (not (or $np.ingressFrom $np.ingressNamespaces)) -}}
{{- fail "networkPolicy.ingressFrom: config.web.identity.mode is proxy, so admit to the chat's port only the proxy's pods (and Mattermost's server for the slash command): every pod it admits from inside trusted_proxies could send the user header" -}}
{{- end -}}
{{- if or (not .Values.image.tag) (eq (toString .Values.image.tag) "latest") -}}
{{- fail "image.tag: set a release tag (not empty, not latest)" -}}
{{- end -}}
{{- end -}}

{{/* The configuration as the pod reads it: the values' config, with what the chart owns. */}}
{{- define "infrabot.config" -}}
{{- $config := deepCopy .Values.config -}}
{{- /* web: the values' (identity, allowed_hosts) kept, the ports set by the chart */ -}}
{{- $web := default (dict) $config.web -}}
{{- $_ := set $web "host" "0.0.0.0" -}}
{{- $_ := set $web "port" (int .Values.web.port) -}}
{{- $_ := set $web "metrics_port" (int .Values.metrics.port) -}}
{{- $_ := set $config "web" $web -}}
{{- $memory := default (dict) $config.memory -}}
{{- $_ := set $memory "knowledge_path" "/var/lib/infrabot/knowledge.jsonl" -}}
{{- $_ := set $config "memory" $memory -}}
{{- if $config.mattermost -}}
{{- $_ := set $config.mattermost "replicas" (int .Values.replicas) -}}
{{- if and .Values.leases.enabled (gt (int .Values.replicas) 1) -}}
{{- $_ := set $config.mattermost "leases" (dict "duration_s" (int .Values.leases.durationSeconds)) -}}
{{- end -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{/* NetworkPolicy peers: every pod of the namespaces named (by the name label Kubernetes
sets on each namespace), then the peers as written. */}}
{{- define "infrabot.peers" -}}
{{- with .namespaces }}
- namespaceSelector:
    matchExpressions:
      - {key: kubernetes.io/metadata.name, operator: In, values: {{ toJson . }}}
{{- end }}
{{- with .from }}
{{ toYaml . }}
{{- end }}
{{- end -}}
