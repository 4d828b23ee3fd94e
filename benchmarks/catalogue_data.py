"""A synthetic tool catalogue the size of TheMCPCompany's (18,505 tools) and labelled questions.

The catalogue is what an enterprise's MCP servers expose together: many services (cluster
APIs, metrics, logs, traces, code hosting, CI, workflow engines, ticketing, paging, secrets
metadata, cloud read APIs, databases, queues, CRM, HR, finance), each deployed as several
servers (clusters, regions, accounts, tenants, versions), so that the same operation exists
many times over under near-identical text, and different services share the same verbs and
objects (alerts, incidents, pipelines, issues, logs): lexical confusion is real. Some tools
write (create, restart, sync); admission drops those.

Everything is deterministic: `catalogue(size, seed)` gives the same contracts every time.
A question's gold set is every tool doing what it asks on the service (and the server,
where it names one) it means; a hit is any gold tool among the chosen.

The questions were written before the ranking was tuned, from what an SRE would ask, most
of them without the tool's own name.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from policy.contracts import AgentMeta, ToolContract

FULL = 18_505
SEED = 20_260_720

# argument name -> (type, description); a trailing "!" in an operation's list: required
ARGS: dict[str, tuple[Any, str]] = {
    "namespace": (str, "Kubernetes namespace to read from"),
    "name": (str, "exact name of the object"),
    "label_selector": (str, "label selector, e.g. app=web,tier!=cache"),
    "field_selector": (str, "field selector, e.g. status.phase=Running"),
    "container": (str, "container name inside the pod"),
    "node": (str, "node (host) name"),
    "tail_lines": (int, "how many of the last lines to return"),
    "since": (datetime, "start of the time window (RFC 3339)"),
    "until": (datetime, "end of the time window (RFC 3339)"),
    "limit": (int, "maximum number of items to return"),
    "page_token": (str, "opaque cursor of the next page from a previous answer"),
    "query": (str, "query expression in the service's own query language"),
    "step": (str, "resolution step of a range query, e.g. 30s or 5m"),
    "metric": (str, "metric name"),
    "label": (str, "label name"),
    "index": (str, "index name or pattern, wildcards allowed"),
    "size": (int, "number of hits to return"),
    "project": (str, "project path or numeric id"),
    "repository": (str, "repository as owner/name"),
    "ref": (str, "branch, tag or commit SHA"),
    "base": (str, "base ref to compare from"),
    "head": (str, "head ref to compare to"),
    "path": (str, "file path inside the repository"),
    "state": (str, "state filter: open, closed, merged or all"),
    "author": (str, "author username"),
    "number": (int, "number (iid) of the item"),
    "job_id": (int, "numeric id of the job or build"),
    "pipeline_id": (int, "numeric id of the pipeline or run"),
    "status": (str, "status filter"),
    "jql": (str, "JQL query, e.g. project = OPS AND status = Open"),
    "cql": (str, "CQL query over pages and blog posts"),
    "issue_key": (str, "issue key such as OPS-123"),
    "space": (str, "space key"),
    "page_id": (str, "numeric id of the page"),
    "incident_id": (str, "incident id"),
    "service_id": (str, "service id"),
    "schedule_id": (str, "schedule id"),
    "team": (str, "team name or id"),
    "urgency": (str, "urgency filter: high or low"),
    "mount": (str, "secrets engine mount path"),
    "secret_path": (str, "path of the secret inside the mount (metadata only)"),
    "policy": (str, "policy name"),
    "region": (str, "cloud region, e.g. eu-west-1"),
    "instance_id": (str, "instance id"),
    "filters": (str, "filter expression as Name=Values pairs"),
    "log_group": (str, "log group name"),
    "bucket": (str, "bucket name"),
    "cluster": (str, "cluster name"),
    "role": (str, "role name"),
    "database": (str, "database name"),
    "table": (str, "table name"),
    "schema_name": (str, "database schema name"),
    "sql": (str, "a single read-only SELECT statement"),
    "collection": (str, "collection name"),
    "filter": (str, "filter document as JSON"),
    "pipeline": (str, "aggregation pipeline as a JSON array"),
    "pattern": (str, "key pattern, glob style"),
    "topic": (str, "topic name"),
    "group": (str, "consumer group id"),
    "queue": (str, "queue name"),
    "vhost": (str, "virtual host"),
    "workflow_id": (str, "workflow id"),
    "execution_id": (str, "execution id"),
    "dag_id": (str, "DAG id"),
    "run_id": (str, "run id"),
    "task_id": (str, "task id"),
    "dashboard_uid": (str, "dashboard uid"),
    "datasource": (str, "data source name or uid"),
    "folder": (str, "folder name"),
    "trace_id": (str, "trace id (hex)"),
    "service": (str, "service name as the tracer reports it"),
    "operation": (str, "operation (span) name"),
    "min_duration": (str, "minimum span duration, e.g. 500ms"),
    "issue_id": (str, "issue id"),
    "release": (str, "release version"),
    "environment": (str, "deployment environment name"),
    "account_id": (str, "account id"),
    "opportunity_id": (str, "opportunity id"),
    "case_id": (str, "case id"),
    "email": (str, "e-mail address"),
    "employee_id": (str, "employee id"),
    "department": (str, "department name"),
    "invoice_id": (str, "invoice id"),
    "vendor": (str, "vendor name or id"),
    "period": (str, "accounting period, e.g. 2026-06"),
    "cost_center": (str, "cost center code"),
    "customer": (str, "customer id"),
    "channel": (str, "channel name or id"),
    "zone": (str, "DNS zone name"),
    "workspace": (str, "workspace name"),
    "entity_ref": (str, "catalog entity reference kind:namespace/name"),
    "realm": (str, "realm name"),
    "user": (str, "user name or id"),
    "host": (str, "host name"),
    "release_name": (str, "Helm release name"),
    "application": (str, "application name"),
    "ticket_id": (str, "ticket id"),
    "monitor_id": (str, "monitor id"),
    "key": (str, "key name"),
    "broker_id": (int, "broker id"),
    "certificate": (str, "certificate serial or common name"),
    "message": (str, "text to post"),
    "summary": (str, "one-line summary"),
    "replicas": (int, "desired number of replicas"),
}

# service: (display name, source, what it is, server names, operations)
# an operation: "name|what it does|arguments"; a verb in WRITES makes it a write tool
Service = tuple[str, str, str, list[str], list[str]]

K8S_OPS = [
    "list_pods|List pods with their phase, restart count, node, IP and age|"
    "namespace,label_selector,field_selector,limit",
    "get_pod|Get one pod: spec, container statuses, last termination reason and exit code|"
    "namespace!,name!",
    "pod_logs|Read a container's log lines, optionally from the previous (crashed) instance|"
    "namespace!,name!,container,tail_lines,since",
    "list_events|List cluster events (warnings such as BackOff, FailedScheduling, OOMKilled) "
    "for a namespace or object|namespace,field_selector,since,limit",
    "list_deployments|List deployments with desired, ready and updated replicas|"
    "namespace,label_selector",
    "get_deployment|Get a deployment's spec, strategy, image tags and rollout conditions|"
    "namespace!,name!",
    "rollout_history|Revision history of a deployment rollout: revisions, images, change cause|"
    "namespace!,name!",
    "list_statefulsets|List statefulsets with ready replicas and update revision|namespace",
    "list_daemonsets|List daemonsets with desired, scheduled and unavailable pods|namespace",
    "list_nodes|List nodes with conditions (Ready, MemoryPressure, DiskPressure), taints and "
    "kubelet version|label_selector",
    "describe_node|Describe a node: capacity, allocatable, conditions, pods on it|node!",
    "list_services|List services with type, cluster IP and ports|namespace",
    "list_endpoints|List endpoints: the ready and not-ready addresses behind each service|"
    "namespace,name",
    "list_ingresses|List ingress rules: hosts, paths, backends and TLS secrets|namespace",
    "list_configmaps|List config maps and their keys (not values)|namespace",
    "list_pvcs|List persistent volume claims with status, capacity and storage class|namespace",
    "list_jobs|List batch jobs with completions, failures and duration|namespace",
    "list_cronjobs|List cron jobs with schedule, last schedule time and active runs|namespace",
    "resource_quotas|Resource quotas of a namespace: used versus hard limits for cpu, memory, "
    "pods|namespace!",
    "list_hpas|List horizontal pod autoscalers: current and desired replicas, target metrics|"
    "namespace",
    "top_pods|Current CPU and memory usage of pods from metrics-server|namespace,label_selector",
    "top_nodes|Current CPU and memory usage of nodes from metrics-server|",
    "list_namespaces|List namespaces with their phase and labels|label_selector",
    "network_policies|List network policies: pod selectors, ingress and egress rules|namespace",
    "pod_disruption_budgets|List pod disruption budgets and allowed disruptions|namespace",
    "delete_pod|Delete a pod so that its controller recreates it|namespace!,name!",
    "scale_deployment|Scale a deployment to a number of replicas|namespace!,name!,replicas!",
    "restart_deployment|Restart a deployment's pods with a rolling restart|namespace!,name!",
]

PROM_OPS = [
    "query_instant|Evaluate a PromQL expression at one instant|query!,until",
    "query_range|Evaluate a PromQL expression over a time range, one sample per step|"
    "query!,since!,until,step",
    "list_alerts|Alerts currently pending or firing from the alerting rules|",
    "list_rules|Recording and alerting rules with their health and last evaluation|",
    "list_targets|Scrape targets with health, last scrape and last error|",
    "metric_metadata|Type, help and unit of metrics|metric",
    "label_values|Values a label takes across series|label!,query",
    "series|Series matching a selector|query!,since,until",
    "tsdb_status|TSDB status: head series, cardinality by metric and label|",
]
VM_OPS = [
    *PROM_OPS,
    "cardinality_explorer|Cardinality explorer: top metrics and labels by series count|",
    "top_queries|Most frequent and slowest queries|limit",
    "active_queries|Queries running now|",
    "vmalert_groups|vmalert rule groups, their interval and evaluation errors|",
]

SERVICES: dict[str, Service] = {
    "kubernetes": (
        "Kubernetes",
        "kubernetes",
        "Kubernetes API of a cluster",
        [
            "prod_eu1",
            "prod_eu2",
            "prod_us1",
            "prod_ap1",
            "stage_eu1",
            "stage_us1",
            "dev_eu1",
            "qa_eu1",
            "edge_msk",
            "edge_spb",
            "ml_gpu",
            "data_platform",
        ],
        K8S_OPS,
    ),
    "openshift": (
        "OpenShift",
        "openshift",
        "OpenShift cluster API (Kubernetes with routes, builds and projects)",
        ["ocp_prod", "ocp_stage", "ocp_legacy", "ocp_bank"],
        [
            *K8S_OPS[:6],
            "list_routes|List routes: host, path, TLS termination and target service|namespace",
            "list_builds|List builds with status, strategy and duration|namespace",
            "build_logs|Read the log of a build|namespace!,name!",
            "list_imagestreams|List image streams and their tags|namespace",
            "list_projects|List projects the caller can see|",
            "list_deploymentconfigs|List deployment configs and their latest version|namespace",
        ],
    ),
    "argocd": (
        "Argo CD",
        "argocd",
        "Argo CD GitOps controller",
        ["main", "platform", "tenants", "legacy"],
        [
            "list_applications|List applications with sync status and health|project",
            "get_application|Get an application: source repo, target revision, destination|"
            "application!",
            "app_sync_status|Sync and health status of an application's resources|application!",
            "app_history|Deployment history of an application: revisions synced and when|"
            "application!",
            "app_resources|Resource tree of an application with health of each object|application!",
            "app_diff|Diff between live state and desired manifests in Git|application!",
            "list_projects|List Argo CD projects and their destinations|",
            "sync_application|Trigger a sync of an application|application!,ref",
        ],
    ),
    "flux": (
        "Flux",
        "flux",
        "Flux GitOps toolkit",
        ["prod", "stage"],
        [
            "list_kustomizations|List kustomizations with ready status and last applied "
            "revision|namespace",
            "list_helmreleases|List Helm releases managed by Flux with ready status|namespace",
            "source_status|Status of Git and Helm sources: last fetched revision, errors|namespace",
            "reconcile|Request an immediate reconcile|namespace!,name!",
        ],
    ),
    "helm": (
        "Helm",
        "helm",
        "Helm releases of a cluster",
        ["prod_eu1", "prod_us1", "stage_eu1"],
        [
            "list_releases|List Helm releases with chart, app version, revision and status|"
            "namespace",
            "release_history|Revision history of a Helm release|namespace!,release_name!",
            "get_values|User-supplied values of a Helm release|namespace!,release_name!",
            "get_manifest|Rendered manifest of a Helm release|namespace!,release_name!",
            "rollback_release|Roll a release back to a revision|namespace!,release_name!",
        ],
    ),
    "prometheus": (
        "Prometheus",
        "prometheus",
        "Prometheus server",
        ["k8s_prod", "k8s_stage", "infra", "network", "db"],
        PROM_OPS,
    ),
    "victoriametrics": (
        "VictoriaMetrics",
        "victoriametrics",
        "VictoriaMetrics cluster (PromQL and MetricsQL)",
        ["prod", "stage", "longterm", "edge"],
        VM_OPS,
    ),
    "mimir": (
        "Grafana Mimir",
        "mimir",
        "Grafana Mimir multi-tenant metrics store",
        ["prod", "stage"],
        [*PROM_OPS[:4], "tenant_limits|Per-tenant limits and ingestion rate|"],
    ),
    "alertmanager": (
        "Alertmanager",
        "alertmanager",
        "Prometheus Alertmanager",
        ["prod", "stage", "infra"],
        [
            "list_alerts|Alerts as Alertmanager holds them: active, silenced, inhibited|filter",
            "list_silences|Silences with matchers, author, comment and expiry|",
            "list_receivers|Notification receivers and their integrations|",
            "alert_groups|Alerts grouped by the routing tree|",
            "create_silence|Create a silence for matchers|filter!,until!",
        ],
    ),
    "grafana": (
        "Grafana",
        "grafana",
        "Grafana instance",
        ["main", "ops", "business"],
        [
            "search_dashboards|Search dashboards by title, tag or folder|query,folder",
            "get_dashboard|Get a dashboard's panels and their queries|dashboard_uid!",
            "list_datasources|List data sources and their types|",
            "query_datasource|Run a query against a data source through Grafana|"
            "datasource!,query!,since,until",
            "list_alert_rules|Grafana-managed alert rules with state|folder",
            "list_annotations|Annotations (deploys, incidents) on dashboards in a window|"
            "dashboard_uid,since,until",
            "list_folders|List dashboard folders|",
            "list_contact_points|Contact points of Grafana alerting|",
            "create_annotation|Add an annotation to a dashboard|dashboard_uid!,message!",
        ],
    ),
    "loki": (
        "Loki",
        "loki",
        "Grafana Loki log store (LogQL)",
        ["prod", "stage", "audit"],
        [
            "query_range|Run a LogQL query over a time range and return log lines|"
            "query!,since!,until,limit",
            "label_values|Values of a log stream label|label!,since",
            "series|Log streams matching a selector|query!,since",
            "log_volume|Log volume by stream over time|query!,since!",
        ],
    ),
    "elasticsearch": (
        "Elasticsearch",
        "elasticsearch",
        "Elasticsearch cluster",
        ["logs_prod", "logs_stage", "search", "apm", "security"],
        [
            "search|Search documents with a query DSL body or Lucene query string|"
            "index!,query!,size,since,until",
            "count|Count documents matching a query|index!,query",
            "cluster_health|Cluster health: status green/yellow/red, unassigned shards|",
            "list_indices|List indices with health, document count and size|index",
            "index_mapping|Field mapping of an index|index!",
            "nodes_stats|Node statistics: heap, disk, thread pool rejections|node",
            "allocation_explain|Why a shard is unassigned|index",
            "list_snapshots|Snapshots of a repository and their state|",
            "pending_tasks|Pending cluster tasks|",
            "ilm_explain|Index lifecycle management state of indices|index!",
            "cat_shards|Shards with state, node and size|index",
        ],
    ),
    "opensearch": (
        "OpenSearch",
        "opensearch",
        "OpenSearch cluster",
        ["logs", "siem", "catalog"],
        [
            "search|Search documents with a query DSL body or query string|"
            "index!,query!,size,since,until",
            "count|Count documents matching a query|index!,query",
            "cluster_health|Cluster health and unassigned shards|",
            "list_indices|List indices with health, document count and size|index",
            "nodes_stats|Node statistics: JVM heap, disk, thread pools|node",
            "list_monitors|Alerting monitors and their last trigger state|",
        ],
    ),
    "kibana": (
        "Kibana",
        "kibana",
        "Kibana",
        ["prod", "security"],
        [
            "list_saved_searches|Saved searches and their queries|",
            "get_dashboard|Get a Kibana dashboard's visualizations|dashboard_uid!",
            "discover_query|Run a Discover (KQL) query over an index pattern|index!,query!,since",
        ],
    ),
    "jaeger": (
        "Jaeger",
        "jaeger",
        "Jaeger tracing",
        ["prod", "stage"],
        [
            "find_traces|Find traces of a service and operation, slow ones with min duration|"
            "service!,operation,min_duration,since,limit",
            "get_trace|Get a trace with all its spans|trace_id!",
            "list_services|Services that report traces|",
            "list_operations|Operations (span names) of a service|service!",
            "dependencies|Service dependency graph from traces|since",
        ],
    ),
    "tempo": (
        "Grafana Tempo",
        "tempo",
        "Grafana Tempo tracing backend (TraceQL)",
        ["prod"],
        [
            "search_traces|Search traces with TraceQL|query!,since,limit",
            "get_trace|Get a trace by id|trace_id!",
            "tag_values|Values of a span attribute|label!",
        ],
    ),
    "sentry": (
        "Sentry",
        "sentry",
        "Sentry error tracking",
        ["saas", "onprem"],
        [
            "list_issues|Unresolved error issues of a project, by frequency|project!,query",
            "get_issue|Get an error issue: culprit, first and last seen, count|issue_id!",
            "issue_events|Latest events (stack traces) of an issue|issue_id!,limit",
            "list_releases|Releases of a project and their new issues|project!",
            "release_health|Crash-free sessions and users of a release|project!,release!",
            "list_projects|Projects of the organization|",
        ],
    ),
    "gitlab": (
        "GitLab",
        "gitlab",
        "GitLab",
        ["main", "legacy", "partners"],
        [
            "list_merge_requests|List merge requests of a project by state, author, target "
            "branch|project!,state,author,limit",
            "get_merge_request|Get a merge request: description, approvals, pipeline status|"
            "project!,number!",
            "merge_request_diff|Changed files and diff of a merge request|project!,number!",
            "merge_request_discussions|Review threads and comments on a merge request|"
            "project!,number!",
            "list_pipelines|List CI pipelines of a project with status, ref and duration|"
            "project!,ref,status,limit",
            "get_pipeline|Get a pipeline with its stages and jobs|project!,pipeline_id!",
            "job_log|Trace (console log) of a CI job|project!,job_id!",
            "list_commits|List commits of a branch with author and message|"
            "project!,ref,since,until",
            "get_commit|Get a commit with its diff stats|project!,ref!",
            "compare_refs|Compare two refs: commits and diff between them|project!,base!,head!",
            "list_tags|List tags of a project|project!",
            "list_releases|Releases of a project with notes|project!",
            "list_branches|Branches of a project with last commit|project!",
            "get_file|Raw content of a file at a ref|project!,path!,ref",
            "search_code|Search code across projects|query!,project",
            "list_environments|Environments of a project with the last deployment|project!",
            "list_deployments|Deployments to an environment: who, which ref, when|"
            "project!,environment,since",
            "project_members|Members of a project and their access level|project!",
            "list_issues|Issues of a project|project!,state,author",
            "create_merge_request|Open a merge request|project!,head!,base!,summary!",
            "retry_job|Retry a failed CI job|project!,job_id!",
        ],
    ),
    "github": (
        "GitHub",
        "github",
        "GitHub",
        ["cloud", "enterprise"],
        [
            "list_pull_requests|List pull requests of a repository by state|"
            "repository!,state,author",
            "get_pull_request|Get a pull request: body, mergeable state, checks|"
            "repository!,number!",
            "pull_request_files|Files changed in a pull request|repository!,number!",
            "pull_request_reviews|Reviews and approvals of a pull request|repository!,number!",
            "list_workflow_runs|GitHub Actions workflow runs with conclusion|"
            "repository!,ref,status",
            "workflow_run_jobs|Jobs and steps of a workflow run|repository!,pipeline_id!",
            "job_logs|Logs of an Actions job|repository!,job_id!",
            "list_commits|Commits of a branch|repository!,ref,since,until",
            "compare_commits|Compare two commits or branches|repository!,base!,head!",
            "list_releases|Releases of a repository|repository!",
            "get_file_contents|Content of a file at a ref|repository!,path!,ref",
            "search_code|Search code|query!",
            "list_issues|Issues of a repository|repository!,state",
            "list_deployments|Deployments of a repository to environments|repository!,environment",
            "dependabot_alerts|Dependabot vulnerability alerts of a repository|repository!,state",
            "code_scanning_alerts|Code scanning alerts of a repository|repository!,state",
            "create_issue|Open an issue|repository!,summary!",
        ],
    ),
    "bitbucket": (
        "Bitbucket",
        "bitbucket",
        "Bitbucket",
        ["server", "cloud"],
        [
            "list_pull_requests|Pull requests of a repository|repository!,state",
            "pull_request_diff|Diff of a pull request|repository!,number!",
            "list_pipelines|Bitbucket Pipelines runs|repository!,status",
            "list_commits|Commits of a branch|repository!,ref",
            "get_file|Content of a file|repository!,path!,ref",
        ],
    ),
    "jenkins": (
        "Jenkins",
        "jenkins",
        "Jenkins CI",
        ["main", "mobile", "release", "legacy"],
        [
            "list_jobs|List jobs and their last build result|folder",
            "get_build|Get a build: result, duration, parameters, culprits|name!,job_id!",
            "console_log|Console output of a build|name!,job_id!,tail_lines",
            "build_history|Recent builds of a job with results|name!,limit",
            "build_queue|Builds waiting in the queue and why|",
            "test_report|Test results of a build: failed and flaky tests|name!,job_id!",
            "list_agents|Build agents (nodes) online and offline, executors busy|",
            "trigger_build|Start a build|name!",
        ],
    ),
    "teamcity": (
        "TeamCity",
        "teamcity",
        "JetBrains TeamCity",
        ["main"],
        [
            "list_builds|Builds of a configuration with status|name!,status",
            "build_log|Build log|job_id!",
            "build_problems|Problems and failed tests of a build|job_id!",
            "list_agents|Agents and their state|",
        ],
    ),
    "buildkite": (
        "Buildkite",
        "buildkite",
        "Buildkite CI",
        ["main"],
        [
            "list_builds|Builds of a pipeline with state and branch|name!,state",
            "get_build|Get a build with its jobs|name!,number!",
            "job_log|Log of a job|name!,job_id!",
            "list_agents|Connected agents|",
        ],
    ),
    "argo_workflows": (
        "Argo Workflows",
        "argo_workflows",
        "Argo Workflows engine",
        ["data", "ml"],
        [
            "list_workflows|Workflows with phase and duration|namespace,status",
            "get_workflow|Get a workflow with node statuses|namespace!,workflow_id!",
            "workflow_logs|Logs of a workflow's steps|namespace!,workflow_id!",
            "list_cron_workflows|Cron workflows and last run|namespace",
        ],
    ),
    "n8n": (
        "n8n",
        "n8n",
        "n8n workflow automation",
        ["ops", "business", "marketing"],
        [
            "list_workflows|List automation workflows, active or not, with tags|status",
            "get_workflow|Get a workflow's nodes and connections|workflow_id!",
            "list_executions|Executions of workflows with status and duration|"
            "workflow_id,status,limit",
            "get_execution|Get one execution with node results and the error|execution_id!",
            "list_credentials|Names and types of stored credentials (no secrets)|",
            "activate_workflow|Activate or deactivate a workflow|workflow_id!",
        ],
    ),
    "airflow": (
        "Apache Airflow",
        "airflow",
        "Apache Airflow scheduler",
        ["etl", "ml", "finance"],
        [
            "list_dags|DAGs with schedule, paused flag and last run state|",
            "dag_runs|Runs of a DAG with state and duration|dag_id!,status",
            "task_instances|Task instances of a DAG run and their states|dag_id!,run_id!",
            "task_log|Log of a task try|dag_id!,run_id!,task_id!",
            "import_errors|DAG files that failed to import|",
            "list_pools|Pools and their used and queued slots|",
        ],
    ),
    "jira": (
        "Jira",
        "jira",
        "Atlassian Jira",
        ["cloud", "dc", "itsm"],
        [
            "search_issues|Search issues with JQL: key, summary, status, assignee|jql!,limit",
            "get_issue|Get an issue with description, fields and links|issue_key!",
            "issue_comments|Comments of an issue|issue_key!",
            "issue_changelog|Change history of an issue: status transitions, reassignment|"
            "issue_key!",
            "list_projects|Projects visible to the caller|",
            "list_sprints|Sprints of a board: active, future, closed|name!",
            "sprint_issues|Issues in a sprint|name!",
            "list_versions|Fix versions of a project and their release dates|project!",
            "user_worklogs|Work logged by a user in a period|user!,since,until",
            "create_issue|Create an issue|project!,summary!",
            "transition_issue|Move an issue to another status|issue_key!,status!",
            "add_comment|Comment on an issue|issue_key!,message!",
        ],
    ),
    "confluence": (
        "Confluence",
        "confluence",
        "Atlassian Confluence wiki",
        ["cloud", "dc"],
        [
            "search_pages|Search pages and blog posts with CQL or text|cql!,limit",
            "get_page|Get a page's body in storage format|page_id!",
            "page_children|Child pages of a page|page_id!",
            "page_history|Versions of a page with author and date|page_id!",
            "list_spaces|Spaces with key and name|",
            "page_attachments|Attachments of a page|page_id!",
            "create_page|Create a page|space!,summary!,message!",
        ],
    ),
    "servicenow": (
        "ServiceNow",
        "servicenow",
        "ServiceNow ITSM",
        ["prod", "test"],
        [
            "list_incidents|Incidents by state, priority and assignment group|status,team,limit",
            "get_incident|Get an incident with work notes|incident_id!",
            "list_change_requests|Change requests with state, risk and planned window|"
            "status,since,until",
            "get_change_request|Get a change request with its approvals|ticket_id!",
            "list_problems|Problem records|status",
            "cmdb_lookup|Look up a configuration item in the CMDB|name!",
            "create_incident|Open an incident|summary!",
        ],
    ),
    "zendesk": (
        "Zendesk",
        "zendesk",
        "Zendesk customer support",
        ["support", "partners"],
        [
            "search_tickets|Search support tickets|query!,status",
            "get_ticket|Get a support ticket|ticket_id!",
            "ticket_comments|Comments of a ticket|ticket_id!",
            "satisfaction_ratings|Customer satisfaction ratings|since",
        ],
    ),
    "pagerduty": (
        "PagerDuty",
        "pagerduty",
        "PagerDuty incident response",
        ["main", "emea", "amer"],
        [
            "list_incidents|Incidents: triggered, acknowledged, resolved, with service and "
            "urgency|status,service_id,urgency,since,until",
            "get_incident|Get an incident: assignees, escalation, timeline|incident_id!",
            "incident_log_entries|Log entries of an incident: notifications, acks|incident_id!",
            "list_oncalls|Who is on call now for each escalation policy and schedule|"
            "schedule_id,since,until",
            "list_schedules|On-call schedules|",
            "schedule_overrides|Overrides of an on-call schedule|schedule_id!,since,until",
            "list_services|Services and their integrations|team",
            "list_escalation_policies|Escalation policies and their levels|team",
            "incident_alerts|Alerts grouped into an incident|incident_id!",
            "acknowledge_incident|Acknowledge an incident|incident_id!",
        ],
    ),
    "opsgenie": (
        "Opsgenie",
        "opsgenie",
        "Atlassian Opsgenie alerting",
        ["main", "apac"],
        [
            "list_alerts|Open and closed alerts with priority and owner team|query,status,limit",
            "get_alert|Get an alert with details and tags|incident_id!",
            "who_is_on_call|Participants on call now for a schedule|schedule_id!",
            "list_schedules|Schedules|team",
            "alert_logs|Activity log of an alert|incident_id!",
        ],
    ),
    "statuspage": (
        "Statuspage",
        "statuspage",
        "public status page",
        ["public", "internal"],
        [
            "list_incidents|Published status incidents and their updates|status",
            "component_status|Status of each component|",
            "scheduled_maintenances|Upcoming and ongoing scheduled maintenances|",
        ],
    ),
    "vault": (
        "HashiCorp Vault",
        "vault",
        "HashiCorp Vault (metadata only, never secret values)",
        ["prod", "stage", "pki"],
        [
            "secret_metadata|Metadata of a KV secret: versions, created and updated time|"
            "mount!,secret_path!",
            "list_secrets|Secret paths under a KV prefix (names only)|mount!,secret_path",
            "list_policies|ACL policy names|",
            "read_policy|Rules of an ACL policy|policy!",
            "auth_methods|Enabled auth methods and their mounts|",
            "list_leases|Leases under a prefix with expiry|secret_path!",
            "pki_certificates|Certificates issued by a PKI mount with expiry dates|"
            "mount!,certificate",
            "seal_status|Seal status, version and HA mode|",
            "audit_devices|Enabled audit devices|",
        ],
    ),
    "consul": (
        "Consul",
        "consul",
        "HashiCorp Consul service catalog",
        ["dc1", "dc2"],
        [
            "catalog_services|Services registered in the catalog with tags|",
            "service_health|Health checks of a service's instances|service!",
            "list_nodes|Catalog nodes|",
            "kv_get|Read a key from the KV store|key!",
            "intentions|Service-to-service intentions (allow, deny)|service",
        ],
    ),
    "aws": (
        "AWS",
        "aws",
        "Amazon Web Services read-only API of an account",
        ["prod", "staging", "shared", "data", "security", "sandbox"],
        [
            "ec2_describe_instances|Describe EC2 instances: state, type, private IP, tags|"
            "region,filters,instance_id",
            "ec2_security_groups|Describe security groups and their rules|region,filters",
            "elb_target_health|Health of targets behind a load balancer target group|region,name!",
            "rds_describe_instances|RDS database instances: engine, class, status, "
            "storage|region,instance_id",
            "rds_events|RDS events: failovers, reboots, maintenance|region,since",
            "cloudwatch_metric_data|CloudWatch metric data for a namespace and metric|"
            "region,metric!,since!,until",
            "cloudwatch_alarms|CloudWatch alarms in ALARM state and their history|region,status",
            "logs_filter_events|Filter CloudWatch Logs events of a log group|"
            "region,log_group!,query,since",
            "s3_list_buckets|List S3 buckets|",
            "s3_bucket_policy|Bucket policy of an S3 bucket|bucket!",
            "iam_list_roles|List IAM roles|",
            "iam_role_policies|Inline and attached policies of an IAM role|role!",
            "eks_describe_cluster|Describe an EKS cluster: version, endpoint, status|"
            "region,cluster!",
            "eks_nodegroups|Node groups of an EKS cluster with scaling config|region,cluster!",
            "route53_records|Records of a Route 53 hosted zone|zone!",
            "cloudtrail_events|CloudTrail events: who called which API and when|"
            "region,user,since,until",
            "cost_and_usage|Cost and usage by service for a period|period!",
            "lambda_functions|Lambda functions with runtime and last modified|region",
            "sqs_queue_attributes|Attributes of an SQS queue: messages visible, age of oldest|"
            "region,queue!",
            "acm_certificates|ACM certificates with expiry and status|region",
        ],
    ),
    "gcp": (
        "Google Cloud",
        "gcp",
        "Google Cloud read-only API of a project",
        ["prod", "analytics", "ml", "sandbox"],
        [
            "compute_instances|Compute Engine instances with status and zone|zone",
            "gke_clusters|GKE clusters with version and status|region",
            "logging_entries|Cloud Logging entries matching a filter|filter!,since",
            "monitoring_time_series|Cloud Monitoring time series|query!,since!",
            "cloudsql_instances|Cloud SQL instances and their state|",
            "iam_policy|IAM policy bindings of the project|",
            "storage_buckets|Cloud Storage buckets|",
            "pubsub_subscriptions|Pub/Sub subscriptions with undelivered messages|topic",
            "billing_costs|Costs by service for a period|period!",
        ],
    ),
    "azure": (
        "Azure",
        "azure",
        "Microsoft Azure read-only API of a subscription",
        ["prod", "corp"],
        [
            "vm_list|Virtual machines with power state|",
            "aks_cluster|AKS cluster details|cluster!",
            "monitor_metrics|Azure Monitor metrics of a resource|metric!,since!",
            "log_analytics_query|Run a KQL query in Log Analytics|query!,since",
            "activity_log|Activity log: who changed which resource|since,until",
            "keyvault_secret_names|Names of Key Vault secrets (no values)|name!",
        ],
    ),
    "postgres": (
        "PostgreSQL",
        "postgres",
        "PostgreSQL database (read-only role)",
        ["orders", "billing", "users", "catalog", "analytics", "auth"],
        [
            "list_databases|Databases with size and owner|",
            "list_tables|Tables of a schema with row estimates and size|schema_name",
            "describe_table|Columns, indexes and constraints of a table|table!,schema_name",
            "run_select|Run a read-only SELECT|sql!,limit",
            "pg_stat_activity|Current sessions: state, query, wait event, duration|database",
            "locks|Locks held and waited for, with blocking sessions|database",
            "replication_status|Replication slots and replica lag|",
            "slow_queries|Slowest statements from pg_stat_statements|limit",
            "table_bloat|Estimated bloat of tables and indexes|schema_name",
            "index_usage|Index scans versus sequential scans per table|schema_name",
            "connections|Connection count by state and by user versus max_connections|",
        ],
    ),
    "mysql": (
        "MySQL",
        "mysql",
        "MySQL database (read-only user)",
        ["shop", "legacy_crm", "wordpress"],
        [
            "processlist|Running threads and their queries|",
            "slow_log|Entries of the slow query log|since,limit",
            "replication_status|Replica status: IO and SQL threads, seconds behind source|",
            "list_tables|Tables with engine and size|database!",
            "describe_table|Columns and indexes of a table|database!,table!",
            "run_select|Run a read-only SELECT|sql!,limit",
            "innodb_status|InnoDB engine status: deadlocks, buffer pool|",
        ],
    ),
    "mongodb": (
        "MongoDB",
        "mongodb",
        "MongoDB (read-only user)",
        ["events", "profiles"],
        [
            "find|Find documents in a collection|collection!,filter,limit",
            "aggregate|Run an aggregation pipeline|collection!,pipeline!",
            "list_collections|Collections of a database|database!",
            "collection_stats|Size, document count and indexes of a collection|collection!",
            "current_op|Operations running now|",
            "replica_set_status|Replica set members, state and lag|",
        ],
    ),
    "redis": (
        "Redis",
        "redis",
        "Redis",
        ["cache", "sessions", "queues"],
        [
            "info|INFO sections: memory, clients, replication, keyspace|",
            "slowlog|Slow log entries|limit",
            "memory_stats|Memory usage and fragmentation|",
            "scan_keys|Scan keys matching a pattern (names and TTLs)|pattern!,limit",
            "client_list|Connected clients|",
            "latency_history|Latency spikes by event|",
        ],
    ),
    "kafka": (
        "Kafka",
        "kafka",
        "Apache Kafka cluster",
        ["main", "events", "cdc"],
        [
            "list_topics|Topics with partition count and replication factor|",
            "describe_topic|Partitions, leaders, ISR and configs of a topic|topic!",
            "consumer_group_lag|Lag of a consumer group per partition|group!",
            "list_consumer_groups|Consumer groups and their state|",
            "broker_config|Configuration of a broker|broker_id!",
            "under_replicated|Under-replicated and offline partitions|",
            "read_messages|Read a few messages from a topic partition|topic!,limit",
        ],
    ),
    "rabbitmq": (
        "RabbitMQ",
        "rabbitmq",
        "RabbitMQ broker",
        ["main", "legacy"],
        [
            "list_queues|Queues with messages ready, unacked and consumers|vhost",
            "queue_details|Rates and consumers of a queue|vhost!,queue!",
            "list_connections|Client connections|vhost",
            "overview|Cluster overview: message rates, node alarms|",
        ],
    ),
    "clickhouse": (
        "ClickHouse",
        "clickhouse",
        "ClickHouse (readonly profile)",
        ["analytics", "logs"],
        [
            "run_select|Run a read-only SELECT|sql!",
            "query_log|Recent queries from system.query_log with duration and memory|since,limit",
            "list_tables|Tables with engine, rows and bytes|database!",
            "parts|Active parts of a table and merges|table!",
            "replication_queue|Replication queue of replicated tables|",
        ],
    ),
    "bigquery": (
        "BigQuery",
        "bigquery",
        "Google BigQuery",
        ["analytics", "finance"],
        [
            "run_query|Run a read-only SQL query|sql!",
            "list_datasets|Datasets of the project|",
            "jobs_history|Recent query jobs with bytes processed and slot time|since",
        ],
    ),
    "cloudflare": (
        "Cloudflare",
        "cloudflare",
        "Cloudflare",
        ["main"],
        [
            "list_zones|Zones and their status|",
            "dns_records|DNS records of a zone|zone!",
            "firewall_events|WAF and firewall events: blocked requests, rules, countries|"
            "zone!,since",
            "zone_analytics|Requests, bandwidth and error rates of a zone|zone!,since",
            "list_workers|Workers scripts and routes|",
        ],
    ),
    "istio": (
        "Istio",
        "istio",
        "Istio service mesh",
        ["prod_eu1", "prod_us1"],
        [
            "virtual_services|Virtual services: hosts, routes, retries, timeouts|namespace",
            "destination_rules|Destination rules: subsets, circuit breaking|namespace",
            "proxy_config|Envoy config of a sidecar: clusters, listeners|namespace!,name!",
            "proxy_status|Sync status of sidecars with istiod|",
        ],
    ),
    "harbor": (
        "Harbor",
        "harbor",
        "Harbor container registry",
        ["main", "dmz"],
        [
            "list_repositories|Image repositories of a project|project!",
            "list_artifacts|Artifacts (image tags, digests, push time) of a repository|"
            "project!,repository!",
            "vulnerability_report|Vulnerability scan report of an image|project!,repository!,ref!",
        ],
    ),
    "sonarqube": (
        "SonarQube",
        "sonarqube",
        "SonarQube code quality",
        ["main"],
        [
            "quality_gate|Quality gate status of a project|project!",
            "list_issues|Code issues: bugs, vulnerabilities, code smells|project!,status",
            "measures|Coverage, duplication and other measures|project!",
        ],
    ),
    "datadog": (
        "Datadog",
        "datadog",
        "Datadog",
        ["us1", "eu1"],
        [
            "query_metrics|Query metric time series|query!,since!,until",
            "list_monitors|Monitors with state (Alert, Warn, OK)|query",
            "search_logs|Search logs|query!,since,limit",
            "list_events|Events stream|since",
            "get_slo|Service level objective with status and error budget|monitor_id!",
            "list_incidents|Datadog incidents|status",
        ],
    ),
    "newrelic": (
        "New Relic",
        "newrelic",
        "New Relic",
        ["main"],
        [
            "nrql_query|Run an NRQL query|query!",
            "alert_violations|Open alert violations|",
            "apm_applications|APM applications with apdex and error rate|",
            "synthetics_results|Results of synthetic monitors|monitor_id",
        ],
    ),
    "zabbix": (
        "Zabbix",
        "zabbix",
        "Zabbix monitoring",
        ["dc", "office"],
        [
            "list_problems|Current problems by severity|host",
            "host_items|Items (checks) of a host with last values|host!",
            "triggers|Triggers and their state|host",
            "history|History values of an item|host!,key!,since",
        ],
    ),
    "terraform": (
        "Terraform Cloud",
        "terraform",
        "Terraform Cloud",
        ["infra", "network"],
        [
            "list_workspaces|Workspaces with last run status|",
            "list_runs|Runs of a workspace: plan, apply, status|workspace!",
            "run_plan|Plan output of a run|run_id!",
            "state_outputs|Outputs of the current state version|workspace!",
        ],
    ),
    "backstage": (
        "Backstage",
        "backstage",
        "Backstage software catalog",
        ["main"],
        [
            "catalog_entities|Catalog entities: components, systems, APIs|query",
            "get_entity|Get an entity with owner, lifecycle and links|entity_ref!",
            "techdocs_search|Search TechDocs documentation|query!",
        ],
    ),
    "keycloak": (
        "Keycloak",
        "keycloak",
        "Keycloak identity provider",
        ["employees", "customers"],
        [
            "list_users|Users of a realm|realm!,query",
            "user_sessions|Active sessions of a user|realm!,user!",
            "list_clients|Clients of a realm|realm!",
            "login_events|Login events and failures of a realm|realm!,since",
        ],
    ),
    "salesforce": (
        "Salesforce",
        "salesforce",
        "Salesforce CRM",
        ["sales", "service"],
        [
            "search_accounts|Search customer accounts|query!",
            "get_account|Get a customer account with owner and tier|account_id!",
            "list_opportunities|Open opportunities with stage and amount|account_id,status",
            "get_opportunity|Get an opportunity|opportunity_id!",
            "list_cases|Support cases of an account|account_id,status",
            "get_case|Get a support case|case_id!",
            "contact_lookup|Find a contact by e-mail|email!",
        ],
    ),
    "hubspot": (
        "HubSpot",
        "hubspot",
        "HubSpot CRM",
        ["marketing"],
        [
            "list_deals|Deals by pipeline stage|status",
            "get_contact|Get a contact|email!",
            "list_companies|Companies|query",
        ],
    ),
    "workday": (
        "Workday",
        "workday",
        "Workday HR",
        ["global"],
        [
            "get_employee|Employee profile: title, department, manager, location|employee_id!",
            "org_chart|Reporting chain and direct reports|employee_id!",
            "time_off|Time off and absences of a person|employee_id!,since,until",
            "open_positions|Open job requisitions|department",
        ],
    ),
    "bamboohr": (
        "BambooHR",
        "bamboohr",
        "BambooHR",
        ["eu"],
        [
            "directory|Employee directory|department",
            "whos_out|Who is out of office today and this week|since",
        ],
    ),
    "netsuite": (
        "NetSuite",
        "netsuite",
        "Oracle NetSuite ERP",
        ["corp", "subsidiary_eu"],
        [
            "list_invoices|Customer invoices with status and due date|customer,status,period",
            "get_invoice|Get an invoice with lines|invoice_id!",
            "vendor_bills|Vendor bills awaiting payment|vendor,status",
            "gl_balance|General ledger account balance for a period|period!,cost_center",
            "budget_vs_actual|Budget versus actual spend by cost center|period!,cost_center",
            "purchase_orders|Purchase orders|vendor,status",
            "expense_reports|Employee expense reports|employee_id,status",
        ],
    ),
    "stripe": (
        "Stripe",
        "stripe",
        "Stripe payments",
        ["live", "test"],
        [
            "list_charges|Charges with status and failure code|customer,since",
            "get_payment_intent|Get a payment intent with its last error|name!",
            "list_disputes|Disputes (chargebacks)|status",
            "balance_transactions|Balance transactions|since",
            "list_payouts|Payouts to the bank|status",
            "list_subscriptions|Subscriptions of a customer|customer!",
        ],
    ),
    "slack": (
        "Slack",
        "slack",
        "Slack workspace",
        ["corp"],
        [
            "search_messages|Search messages|query!,channel",
            "channel_history|Recent messages of a channel|channel!,since",
            "list_channels|Channels|",
            "user_info|Profile of a user|user!",
            "post_message|Post a message to a channel|channel!,message!",
        ],
    ),
    "artifactory": (
        "Artifactory",
        "artifactory",
        "JFrog Artifactory",
        ["main"],
        [
            "search_artifacts|Search artifacts by name or checksum|query!",
            "list_repositories|Repositories and their package type|",
            "artifact_versions|Versions of a package|name!",
        ],
    ),
}

WRITES = frozenset(
    {
        "delete",
        "scale",
        "restart",
        "sync",
        "reconcile",
        "rollback",
        "create",
        "retry",
        "trigger",
        "activate",
        "transition",
        "add",
        "acknowledge",
        "post",
    }
)

# how servers are told apart when one service is deployed many times over (the catalogue
# grows to its size with more servers of each service: teams, regions, versions)
TEAMS = (
    "payments",
    "search",
    "identity",
    "billing",
    "logistics",
    "mobile",
    "core",
    "growth",
    "risk",
    "marketplace",
    "media",
    "ads",
    "support",
    "warehouse",
    "loyalty",
    "fraud",
    "pricing",
    "notify",
    "maps",
    "delivery",
    "partners",
    "devex",
    "infra",
    "security",
)
REGIONS = ("eu1", "eu2", "us1", "us2", "ap1", "msk")
PHRASES = (
    "{what}. Served by the {display} MCP server {server} ({where}).",
    "{what} ({display}, server {server}). {where_cap}.",
    "{display} {server}: {what}. Backed by the {where}.",
)


def _kind(service: str, op: str) -> str:
    verb, _, rest = op.partition("_")
    obj = rest if verb in {"list", "get", "describe", "search", "read", "find"} and rest else op
    return f"{service}.{obj}"


def _output_kind(op: str) -> Any:
    if "log" in op:
        return "log_lines"
    if "event" in op or "history" in op:
        return "events"
    if "query" in op or "metric" in op or "series" in op or "select" in op:
        return "series" if "select" not in op else "table"
    return "objects"


@functools.cache
def args_model(fields: tuple[str, ...]) -> type[BaseModel]:
    """One argument model per set of arguments (shared by every tool that takes it)."""
    spec: dict[str, Any] = {}
    for raw in fields:
        name = raw.rstrip("!")
        kind, description = ARGS.get(name, (str, name.replace("_", " ")))
        if raw.endswith("!"):
            spec[name] = (kind, Field(description=description))
        else:
            spec[name] = (kind | None, Field(default=None, description=description))
    title = "Args_" + "_".join(f.rstrip("!") for f in fields) if fields else "NoArgs"
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        title[:60], __config__=ConfigDict(extra="forbid"), **spec
    )
    return model


@dataclass(frozen=True)
class ToolKey:
    service: str
    server: str
    op: str


def _servers(service: str, base: list[str], rng: random.Random, extra: int) -> list[str]:
    """The service's named servers, then `extra` more: a team's own deployment, a team's
    copy of a named one, an older version of one, a team's deployment in a region."""
    shapes = [list(TEAMS), [f"{b}_{t}" for b in base for t in TEAMS]]
    shapes += [[f"{b}_v{v}" for b in base for v in range(1, 4)]]
    shapes += [[f"{t}_{r}" for t in TEAMS for r in REGIONS]]
    fits = [[n for n in names if len(service) + len(n) < 36] for names in shapes]
    pool = sorted({n for names in fits for n in names} - set(base))
    return [*base, *rng.sample(pool, min(extra, len(pool)))]


def _where(service: str, server: str) -> str:
    parts = server.split("_")
    return f"{service} deployment {'-'.join(parts)}"


def _contract(
    key: ToolKey, display: str, source: str, about: str, what: str, args: str, phrase: str
) -> ToolContract:
    fields = tuple(a for a in args.split(",") if a)
    where = f"{about}, {_where(key.service, key.server)}"
    description = phrase.format(
        what=what,
        display=display,
        server=key.server.replace("_", "-"),
        where=where,
        where_cap=where[:1].upper() + where[1:],
    )
    description += "\n\nRead-only unless the name says otherwise; results are paginated."
    writes = key.op.split("_", 1)[0] in WRITES
    return ToolContract(
        name=f"{key.service}_{key.server}.{key.op}",
        description=description,
        args_model=args_model(fields),
        agent=AgentMeta(
            evidence=[_kind(key.service, key.op)],
            sources=[source],
            output_kind=_output_kind(key.op),
            freshness="live",
            negative_semantics="none",
            supports_history="since" in args,
            current_only="since" not in args,
            read_only=not writes,
        ),
    )


@functools.cache
def catalogue(size: int = FULL, seed: int = SEED) -> tuple[ToolContract, ...]:
    """`size` tools, the same ones for the same seed. Every service's named servers are
    always there (the questions are about them); more servers of each make up the size,
    and a smaller size takes fewer of those."""
    rng = random.Random(seed)
    base_count = sum(len(s[3]) * len(s[4]) for s in SERVICES.values())
    ops_total = sum(len(s[4]) for s in SERVICES.values())
    spare = max(size - base_count, 0)
    keys: list[tuple[ToolKey, Service, str, str]] = []
    extra_keys: list[tuple[ToolKey, Service, str, str]] = []
    for service, spec in SERVICES.items():
        _, _, _, servers, ops = spec
        extra = -(-spare * len(ops) // ops_total) + 1
        every = _servers(service, servers, rng, extra // len(ops) + 1)
        for i, server in enumerate(every):
            for op in ops:
                name, what, args = op.split("|")
                target = keys if i < len(servers) else extra_keys
                target.append((ToolKey(service, server, name), spec, what, args))
    rng.shuffle(extra_keys)
    chosen = keys + extra_keys
    if len(chosen) < size:
        raise ValueError(f"the generator makes at most {len(chosen)} tools")
    chosen = chosen[:size] if size >= len(keys) else rng.sample(keys, size)
    out = []
    for key, spec, what, args in chosen:
        display, source, about, _, _ = spec
        phrase = PHRASES[rng.randrange(len(PHRASES))]
        out.append(_contract(key, display, source, about, what, args, phrase))
    out.sort(key=lambda c: c.name)
    return tuple(out)


# --- questions --------------------------------------------------------------------------

# (question, service, operation, server or "" for any server of the service)
QUESTIONS: list[tuple[str, str, str, str]] = [
    (
        "which pods keep crashlooping in the checkout namespace on prod-eu1?",
        "kubernetes",
        "list_pods",
        "prod_eu1",
    ),
    (
        "show me why the api pod on the stage-us1 cluster was OOMKilled last time",
        "kubernetes",
        "get_pod",
        "stage_us1",
    ),
    (
        "what did the previous container of the worker pod print before it died? cluster prod-us1",
        "kubernetes",
        "pod_logs",
        "prod_us1",
    ),
    (
        "any FailedScheduling warnings in the kubernetes cluster prod-ap1 in the last hour?",
        "kubernetes",
        "list_events",
        "prod_ap1",
    ),
    (
        "how many replicas of the frontend deployment are ready on prod-eu2?",
        "kubernetes",
        "list_deployments",
        "prod_eu2",
    ),
    (
        "which image tag is the cart deployment running in kubernetes dev-eu1?",
        "kubernetes",
        "get_deployment",
        "dev_eu1",
    ),
    (
        "when was the previous revision of the gateway rollout on edge-msk and what image did "
        "it have?",
        "kubernetes",
        "rollout_history",
        "edge_msk",
    ),
    (
        "are any nodes NotReady or under disk pressure in the ml-gpu cluster?",
        "kubernetes",
        "list_nodes",
        "ml_gpu",
    ),
    (
        "what pods are scheduled on node gpu-17 and how much allocatable memory is left? "
        "(kubernetes ml-gpu)",
        "kubernetes",
        "describe_node",
        "ml_gpu",
    ),
    (
        "which addresses are behind the payments service right now, ready or not? prod-eu1 "
        "kubernetes",
        "kubernetes",
        "list_endpoints",
        "prod_eu1",
    ),
    (
        "is the namespace quota for cpu and memory almost exhausted in data-platform?",
        "kubernetes",
        "resource_quotas",
        "data_platform",
    ),
    (
        "is the autoscaler for the search deployment at its max replicas on qa-eu1?",
        "kubernetes",
        "list_hpas",
        "qa_eu1",
    ),
    (
        "which persistent volume claims are stuck in Pending on edge-spb?",
        "kubernetes",
        "list_pvcs",
        "edge_spb",
    ),
    (
        "did last night's cron job for reports run on stage-eu1?",
        "kubernetes",
        "list_cronjobs",
        "stage_eu1",
    ),
    (
        "which pods eat the most CPU right now in the prod-us1 kubernetes cluster?",
        "kubernetes",
        "top_pods",
        "prod_us1",
    ),
    (
        "what hostnames does the ingress of the shop namespace route on prod-eu1, and which "
        "TLS secret?",
        "kubernetes",
        "list_ingresses",
        "prod_eu1",
    ),
    (
        "is there a network policy blocking egress from the billing namespace on prod-eu2?",
        "kubernetes",
        "network_policies",
        "prod_eu2",
    ),
    (
        "which routes expose the portal on the openshift bank cluster?",
        "openshift",
        "list_routes",
        "ocp_bank",
    ),
    (
        "why did the last openshift build of the frontend fail on ocp-stage?",
        "openshift",
        "build_logs",
        "ocp_stage",
    ),
    ("is the checkout application out of sync in Argo CD?", "argocd", "app_sync_status", ""),
    (
        "what changed between git and the live cluster for the billing app in argo?",
        "argocd",
        "app_diff",
        "",
    ),
    ("which revisions did argocd sync for the orders app this week?", "argocd", "app_history", ""),
    (
        "are the flux kustomizations ready on prod or stuck on an old revision?",
        "flux",
        "list_kustomizations",
        "prod",
    ),
    (
        "what values was the redis helm release installed with on prod-us1?",
        "helm",
        "get_values",
        "prod_us1",
    ),
    (
        "show the history of the ingress-nginx helm chart upgrades on stage-eu1",
        "helm",
        "release_history",
        "stage_eu1",
    ),
    (
        "what is the 5xx rate of the api over the last 3 hours in prometheus k8s-prod, per "
        "5 minutes?",
        "prometheus",
        "query_range",
        "k8s_prod",
    ),
    ("which alerts are firing in the network prometheus?", "prometheus", "list_alerts", "network"),
    (
        "which scrape targets are down on the db prometheus and what error do they report?",
        "prometheus",
        "list_targets",
        "db",
    ),
    (
        "what values does the label 'job' take in prometheus infra?",
        "prometheus",
        "label_values",
        "infra",
    ),
    (
        "which metrics have the highest cardinality in victoriametrics prod?",
        "victoriametrics",
        "cardinality_explorer",
        "prod",
    ),
    (
        "what are the slowest queries hitting victoria metrics longterm?",
        "victoriametrics",
        "top_queries",
        "longterm",
    ),
    (
        "do any vmalert rule groups fail to evaluate on the edge victoriametrics?",
        "victoriametrics",
        "vmalert_groups",
        "edge",
    ),
    ("is any tenant hitting its ingestion limits in mimir prod?", "mimir", "tenant_limits", "prod"),
    (
        "who silenced the disk alerts in alertmanager and until when?",
        "alertmanager",
        "list_silences",
        "",
    ),
    (
        "which receivers does the infra alertmanager notify?",
        "alertmanager",
        "list_receivers",
        "infra",
    ),
    ("find the grafana dashboard about kafka consumer lag", "grafana", "search_dashboards", ""),
    (
        "which queries does the 'API overview' dashboard panel run in grafana ops?",
        "grafana",
        "get_dashboard",
        "ops",
    ),
    (
        "were there deploy annotations on the grafana dashboards around 14:00?",
        "grafana",
        "list_annotations",
        "",
    ),
    (
        "show me error lines of the nginx stream in loki prod over the last 30 minutes",
        "loki",
        "query_range",
        "prod",
    ),
    ("how much log volume is the audit loki ingesting per stream?", "loki", "log_volume", "audit"),
    (
        "is the elasticsearch logs-prod cluster red, how many shards unassigned?",
        "elasticsearch",
        "cluster_health",
        "logs_prod",
    ),
    (
        "why is a shard of the orders index unassigned in elasticsearch search?",
        "elasticsearch",
        "allocation_explain",
        "search",
    ),
    (
        "are the data nodes of the apm elasticsearch rejecting writes, heap usage?",
        "elasticsearch",
        "nodes_stats",
        "apm",
    ),
    (
        "which indices are the biggest on the security elasticsearch cluster?",
        "elasticsearch",
        "list_indices",
        "security",
    ),
    (
        "count the documents with status 500 in the nginx index in elasticsearch logs-stage "
        "since noon",
        "elasticsearch",
        "count",
        "logs_stage",
    ),
    (
        "what state is the ilm policy in for the logs-* indices on elasticsearch logs-prod?",
        "elasticsearch",
        "ilm_explain",
        "logs_prod",
    ),
    ("which opensearch siem alerting monitors triggered?", "opensearch", "list_monitors", "siem"),
    (
        "find slow traces of the checkout service over 2 seconds in jaeger prod",
        "jaeger",
        "find_traces",
        "prod",
    ),
    (
        "which services call the inventory service according to tracing dependencies?",
        "jaeger",
        "dependencies",
        "",
    ),
    (
        "what are the most frequent unresolved errors of the mobile-app project in sentry?",
        "sentry",
        "list_issues",
        "",
    ),
    ("what is the crash-free rate of release 4.2.0 in sentry?", "sentry", "release_health", ""),
    (
        "which merge requests are open against main in the payments/api project on gitlab?",
        "gitlab",
        "list_merge_requests",
        "",
    ),
    (
        "what do the reviewers say in the comments on MR 412 of infra/terraform in gitlab?",
        "gitlab",
        "merge_request_discussions",
        "",
    ),
    ("did the latest gitlab pipeline on main of web/shop pass?", "gitlab", "list_pipelines", ""),
    ("show the console output of failed gitlab CI job 88123", "gitlab", "job_log", ""),
    (
        "what commits landed between v1.4.0 and v1.5.0 in the gitlab project core/auth?",
        "gitlab",
        "compare_refs",
        "",
    ),
    (
        "who deployed to production from gitlab today and which ref?",
        "gitlab",
        "list_deployments",
        "",
    ),
    (
        "what's in the values.yaml file of the charts repo on gitlab at the main branch?",
        "gitlab",
        "get_file",
        "",
    ),
    (
        "which pull requests are waiting for review in the org/platform repo on github?",
        "github",
        "list_pull_requests",
        "",
    ),
    (
        "why did the github actions workflow for release fail on the enterprise server?",
        "github",
        "list_workflow_runs",
        "enterprise",
    ),
    (
        "are there critical dependabot vulnerability alerts for our github repo org/web?",
        "github",
        "dependabot_alerts",
        "",
    ),
    (
        "which jenkins builds are stuck in the queue on the mobile instance and why?",
        "jenkins",
        "build_queue",
        "mobile",
    ),
    (
        "which tests failed in build 311 of the release pipeline on jenkins release?",
        "jenkins",
        "test_report",
        "release",
    ),
    ("how many jenkins agents are offline on main?", "jenkins", "list_agents", "main"),
    (
        "show the console output of jenkins build 52 of the deploy job on legacy",
        "jenkins",
        "console_log",
        "legacy",
    ),
    (
        "which argo workflows failed in the data namespace today?",
        "argo_workflows",
        "list_workflows",
        "data",
    ),
    (
        "why did the last run of the lead-sync automation fail in n8n business?",
        "n8n",
        "get_execution",
        "business",
    ),
    (
        "which n8n executions errored in the ops instance this morning?",
        "n8n",
        "list_executions",
        "ops",
    ),
    (
        "which airflow DAG files failed to import on the etl scheduler?",
        "airflow",
        "import_errors",
        "etl",
    ),
    (
        "show the log of the load_orders task in the nightly dag run on airflow finance",
        "airflow",
        "task_log",
        "finance",
    ),
    (
        "which open jira tickets in project OPS are assigned to me with priority high?",
        "jira",
        "search_issues",
        "",
    ),
    ("when did OPS-1234 move to In Progress and who reassigned it?", "jira", "issue_changelog", ""),
    (
        "what issues are in the current sprint of the platform board in jira?",
        "jira",
        "sprint_issues",
        "",
    ),
    (
        "find the confluence runbook page about rotating the database certificates",
        "confluence",
        "search_pages",
        "",
    ),
    (
        "who edited the on-call handbook page in confluence and when?",
        "confluence",
        "page_history",
        "",
    ),
    (
        "which change requests are scheduled in servicenow for tonight?",
        "servicenow",
        "list_change_requests",
        "",
    ),
    (
        "look up the configuration item for the db-17 server in the servicenow cmdb",
        "servicenow",
        "cmdb_lookup",
        "",
    ),
    (
        "which pagerduty incidents are triggered right now for high urgency services?",
        "pagerduty",
        "list_incidents",
        "",
    ),
    (
        "who is on call for the payments escalation policy in pagerduty this weekend?",
        "pagerduty",
        "list_oncalls",
        "",
    ),
    (
        "who acknowledged the incident and when? pagerduty timeline notifications",
        "pagerduty",
        "incident_log_entries",
        "",
    ),
    ("who is on call for the database team in opsgenie?", "opsgenie", "who_is_on_call", ""),
    (
        "is there a scheduled maintenance announced on our status page?",
        "statuspage",
        "scheduled_maintenances",
        "",
    ),
    (
        "when was the kv secret app/db-creds last updated in vault prod?",
        "vault",
        "secret_metadata",
        "prod",
    ),
    ("which pki certificates in vault expire this month?", "vault", "pki_certificates", ""),
    ("is vault sealed and which version is it running on stage?", "vault", "seal_status", "stage"),
    (
        "which instances of the billing service fail consul health checks in dc2?",
        "consul",
        "service_health",
        "dc2",
    ),
    (
        "which ec2 instances are running in the aws prod account with tag team=search?",
        "aws",
        "ec2_describe_instances",
        "prod",
    ),
    (
        "are the targets behind the api load balancer healthy in aws staging?",
        "aws",
        "elb_target_health",
        "staging",
    ),
    (
        "was there an RDS failover or reboot on the orders database in the aws data account?",
        "aws",
        "rds_events",
        "data",
    ),
    (
        "who deleted the security group rule in aws security account yesterday? cloudtrail",
        "aws",
        "cloudtrail_events",
        "security",
    ),
    (
        "how many messages are waiting in the sqs queue for emails in aws prod and how old "
        "is the oldest?",
        "aws",
        "sqs_queue_attributes",
        "prod",
    ),
    (
        "which acm certificates expire soon in the shared aws account?",
        "aws",
        "acm_certificates",
        "shared",
    ),
    (
        "how much did we spend on aws in the sandbox account last month by service?",
        "aws",
        "cost_and_usage",
        "sandbox",
    ),
    (
        "which pubsub subscriptions have a backlog of undelivered messages in gcp analytics?",
        "gcp",
        "pubsub_subscriptions",
        "analytics",
    ),
    (
        "show gcp cloud logging entries with severity ERROR for the ml project",
        "gcp",
        "logging_entries",
        "ml",
    ),
    (
        "what is blocking queries on the orders postgres database right now?",
        "postgres",
        "locks",
        "orders",
    ),
    (
        "how far behind is the replica of the billing postgres?",
        "postgres",
        "replication_status",
        "billing",
    ),
    (
        "which statements are the slowest on the users postgres database?",
        "postgres",
        "slow_queries",
        "users",
    ),
    ("are we near max_connections on the auth postgres?", "postgres", "connections", "auth"),
    (
        "what columns and indexes does the products table have in the catalog postgres?",
        "postgres",
        "describe_table",
        "catalog",
    ),
    ("seconds behind source on the mysql shop replica?", "mysql", "replication_status", "shop"),
    (
        "were there deadlocks in mysql legacy-crm innodb recently?",
        "mysql",
        "innodb_status",
        "legacy_crm",
    ),
    (
        "what is the consumer lag of the billing-events group in kafka main?",
        "kafka",
        "consumer_group_lag",
        "main",
    ),
    (
        "are there under-replicated partitions in the cdc kafka cluster?",
        "kafka",
        "under_replicated",
        "cdc",
    ),
    (
        "how many messages are ready and unacked in the rabbitmq queue for invoices?",
        "rabbitmq",
        "list_queues",
        "",
    ),
    (
        "what is the memory fragmentation of the redis sessions instance?",
        "redis",
        "memory_stats",
        "sessions",
    ),
    ("show the redis slowlog of the cache instance", "redis", "slowlog", "cache"),
    (
        "which clickhouse queries used the most memory in the last hour on analytics?",
        "clickhouse",
        "query_log",
        "analytics",
    ),
    (
        "are we being attacked? blocked requests by WAF rule in cloudflare for example.com",
        "cloudflare",
        "firewall_events",
        "",
    ),
    (
        "what retries and timeouts does the virtual service of reviews have in istio prod-eu1?",
        "istio",
        "virtual_services",
        "prod_eu1",
    ),
    (
        "does the image web:2.3.1 in harbor have critical vulnerabilities?",
        "harbor",
        "vulnerability_report",
        "",
    ),
    ("which datadog monitors are alerting in eu1?", "datadog", "list_monitors", "eu1"),
    ("how much error budget is left on the checkout SLO in datadog?", "datadog", "get_slo", ""),
    (
        "what did the last terraform plan of the network workspace want to change?",
        "terraform",
        "run_plan",
        "network",
    ),
    (
        "who owns the ledger core component in the backstage catalog?",
        "backstage",
        "get_entity",
        "",
    ),
    (
        "how many failed logins did the customers realm see in keycloak today?",
        "keycloak",
        "login_events",
        "customers",
    ),
    (
        "what is the support tier of the customer account ACME in salesforce?",
        "salesforce",
        "get_account",
        "",
    ),
    ("who is out of office this week? bamboohr", "bamboohr", "whos_out", ""),
    ("who is the manager of employee 4411 in workday?", "workday", "org_chart", ""),
    (
        "which vendor bills are awaiting payment in netsuite corp?",
        "netsuite",
        "vendor_bills",
        "corp",
    ),
    (
        "are we over budget on cost center 420 this quarter? netsuite",
        "netsuite",
        "budget_vs_actual",
        "",
    ),
    (
        "which card charges failed in stripe live today and with what failure code?",
        "stripe",
        "list_charges",
        "live",
    ),
    (
        "what did people say in the #incidents slack channel in the last hour?",
        "slack",
        "channel_history",
        "",
    ),
    # Russian, as engineers write it (the services' own names in Latin letters)
    (
        "какие поды в неймспейсе checkout на prod-eu1 постоянно рестартуют?",
        "kubernetes",
        "list_pods",
        "prod_eu1",
    ),
    (
        "покажи логи предыдущего контейнера пода worker в кластере prod-us1",
        "kubernetes",
        "pod_logs",
        "prod_us1",
    ),
    ("есть ли ноды NotReady в кластере ml-gpu?", "kubernetes", "list_nodes", "ml_gpu"),
    ("какие алерты сейчас горят в prometheus network?", "prometheus", "list_alerts", "network"),
    ("кто дежурит сегодня по payments в pagerduty?", "pagerduty", "list_oncalls", ""),
    (
        "какие merge request'ы открыты в проекте payments/api в gitlab?",
        "gitlab",
        "list_merge_requests",
        "",
    ),
    (
        "почему упал последний pipeline на main в gitlab проекта web/shop?",
        "gitlab",
        "list_pipelines",
        "",
    ),
    (
        "какой лаг у consumer group billing-events в kafka main?",
        "kafka",
        "consumer_group_lag",
        "main",
    ),
    ("кто держит блокировки в postgres orders прямо сейчас?", "postgres", "locks", "orders"),
    (
        "статус кластера elasticsearch logs-prod: красный? сколько unassigned шардов?",
        "elasticsearch",
        "cluster_health",
        "logs_prod",
    ),
    ("найди в confluence runbook по ротации сертификатов", "confluence", "search_pages", ""),
    ("какие задачи jira в проекте OPS открыты с высоким приоритетом?", "jira", "search_issues", ""),
    ("какие execution'ы n8n упали сегодня утром в ops?", "n8n", "list_executions", "ops"),
    ("какие сертификаты acm скоро истекают в aws shared?", "aws", "acm_certificates", "shared"),
    ("сколько сообщений в очереди sqs emails в aws prod?", "aws", "sqs_queue_attributes", "prod"),
    ("какие таргеты scrape лежат в prometheus db?", "prometheus", "list_targets", "db"),
    ("рассинхрон приложения checkout в argocd?", "argocd", "app_sync_status", ""),
    ("какие jenkins агенты офлайн на main?", "jenkins", "list_agents", "main"),
]


def gold(
    contracts: tuple[ToolContract, ...] | list[ToolContract], service: str, op: str, server: str
) -> frozenset[str]:
    """The names of the tools that answer a question: the operation on the server it names,
    or on any server of the service when it names none."""
    if server:
        return frozenset(c.name for c in contracts if c.name == f"{service}_{server}.{op}")
    return frozenset(
        c.name for c in contracts if c.name.endswith(f".{op}") and _service_of(c.name) == service
    )


def _service_of(name: str) -> str:
    """The service a tool belongs to (one service's name may begin another's)."""
    head = name.split(".", 1)[0]
    return max((s for s in SERVICES if head.startswith(s + "_")), key=len, default="")
