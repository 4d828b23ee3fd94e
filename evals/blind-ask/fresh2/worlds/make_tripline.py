"""Generates tripline-fra2-hel1.yaml, the world of the fresh2 blind batch (written blind).

Story (times UTC; users speak Moscow time, +03:00; now = 2026-12-07T12:30:00Z = 15:30 MSK):
  fra2: pricing/fare-engine 3.7.2 -> 3.8.0 at 11:47Z (pipeline 51873 by l.garipova, commit by
        m.haddad "keep dense fare matrix in memory"). Ingress p95 for fare-engine rises from
        0.22 s to 0.85 s; pod fare-engine-6c8d9b7f4-q2wzr is OOMKilled 4 times (1Gi limit).
        Node fra2-w06 hit DiskPressure (ephemeral-storage) at 11:21Z: three pods evicted.
  hel1: booking/reservation-api 2.19.0 -> 2.19.1 at 09:40Z (pipeline 51790 by
        t.nurmagambetov, commit by o.lindqvist caps the Hikari pool at 8). From 11:42Z the pool is
        exhausted: 37 "Connection is not available" errors, 37 HTTP 500 at the ingress, two of
        three pods fail readiness. fare-engine in hel1 stays on 3.7.2 (deploy:hel1 is manual).
        media/thumbnailer does not exist in hel1.
Formats: Kubernetes objects as `kubectl get -o yaml` (v1.30), kube-state-metrics v2, cAdvisor
via kubelet, node_exporter 1.8, ingress-nginx 1.11 controller metrics, Spring Boot 3 /
HikariCP 5 logs, gunicorn 22 logs, Node.js (sharp) logs shipped by fluent-bit, GitLab v4.
"""
import hashlib, json, random, yaml, math
from datetime import datetime, timedelta, timezone

R = random.Random(20261207)
NOW = datetime(2026, 12, 7, 12, 30, tzinfo=timezone.utc)
T0 = datetime(2026, 12, 7, 10, 30, tzinfo=timezone.utc)
N = 121  # 10:30..12:30 step 60s

def ts(d, ms=False):
    return d.strftime('%Y-%m-%dT%H:%M:%S') + (('.%03dZ' % (d.microsecond // 1000)) if ms else 'Z')

def uid(*k):
    h = hashlib.sha1('/'.join(k).encode()).hexdigest()
    return f'{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}'

def hx(*k, n=64):
    return (hashlib.sha256('/'.join(k).encode()).hexdigest() * 2)[:n]

def mi(t):  # minutes since T0
    return int((t - T0).total_seconds() // 60)

REG = 'registry.tripline.io'
world = {'environments': {'fra2': ['kubernetes', 'metrics', 'logs'], 'hel1': ['kubernetes', 'metrics', 'logs']},
         'kubernetes': {'fra2': [], 'hel1': []}, 'pod_logs': {'fra2': {}, 'hel1': {}}, 'audit': {'fra2': [], 'hel1': []},
         'metrics': {'fra2': [], 'hel1': []}, 'logs': {'fra2': {}, 'hel1': {}}, 'gitlab': {}}

NODES = {'fra2': [('fra2-w01', '10.31.0.11'), ('fra2-w02', '10.31.0.12'), ('fra2-w03', '10.31.0.13'),
                  ('fra2-w04', '10.31.0.14'), ('fra2-w05', '10.31.0.15'), ('fra2-w06', '10.31.0.16')],
         'hel1': [('hel1-w01', '10.47.0.21'), ('hel1-w02', '10.47.0.22'), ('hel1-w03', '10.47.0.23'),
                  ('hel1-w04', '10.47.0.24'), ('hel1-w05', '10.47.0.25')]}
NODE_IP = {n: ip for env in NODES.values() for n, ip in env}
PODCIDR = {n: f'10.{60 + i // 10}.{i % 10 * 16}.0' for i, n in enumerate(NODE_IP)}

def k8s(env, obj):
    world['kubernetes'][env].append(obj)

def ns_obj(env, name, created):
    k8s(env, {'apiVersion': 'v1', 'kind': 'Namespace',
              'metadata': {'name': name, 'uid': uid(env, 'ns', name), 'resourceVersion': str(R.randint(10**7, 9 * 10**8)),
                           'creationTimestamp': created, 'labels': {'kubernetes.io/metadata.name': name}},
              'spec': {'finalizers': ['kubernetes']}, 'status': {'phase': 'Active'}})

def node_obj(env, name, ip, disk_pressure=None):
    hb = '2026-12-07T12:29:4%dZ' % R.randint(0, 9)
    conds = [
        {'type': 'MemoryPressure', 'status': 'False', 'reason': 'KubeletHasSufficientMemory', 'message': 'kubelet has sufficient memory available',
         'lastHeartbeatTime': hb, 'lastTransitionTime': '2026-11-18T04:12:33Z'},
        {'type': 'DiskPressure', 'status': 'False', 'reason': 'KubeletHasNoDiskPressure', 'message': 'kubelet has no disk pressure',
         'lastHeartbeatTime': hb, 'lastTransitionTime': disk_pressure or '2026-11-18T04:12:33Z'},
        {'type': 'PIDPressure', 'status': 'False', 'reason': 'KubeletHasSufficientPID', 'message': 'kubelet has sufficient PID available',
         'lastHeartbeatTime': hb, 'lastTransitionTime': '2026-11-18T04:12:33Z'},
        {'type': 'Ready', 'status': 'True', 'reason': 'KubeletReady', 'message': 'kubelet is posting ready status',
         'lastHeartbeatTime': hb, 'lastTransitionTime': '2026-11-18T04:12:33Z'}]
    k8s(env, {'apiVersion': 'v1', 'kind': 'Node',
              'metadata': {'name': name, 'uid': uid(env, 'node', name), 'resourceVersion': str(R.randint(10**7, 9 * 10**8)),
                           'creationTimestamp': '2026-03-02T08:14:05Z',
                           'labels': {'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
                                      'node-role.kubernetes.io/worker': '', 'topology.kubernetes.io/zone': env + '-' + ('a' if int(name[-1]) % 2 else 'b')}},
              'spec': {'podCIDR': PODCIDR[name] + '/24', 'providerID': 'openstack:///' + uid(env, 'vm', name)},
              'status': {'addresses': [{'address': ip, 'type': 'InternalIP'}, {'address': name, 'type': 'Hostname'}],
                         'allocatable': {'cpu': '7800m', 'memory': '31782348Ki', 'ephemeral-storage': '95491281146', 'pods': '110'},
                         'capacity': {'cpu': '8', 'memory': '32932300Ki', 'ephemeral-storage': '103617820Ki', 'pods': '110'},
                         'conditions': conds,
                         'nodeInfo': {'architecture': 'amd64', 'containerRuntimeVersion': 'containerd://1.7.22', 'kernelVersion': '6.1.0-26-amd64',
                                      'kubeletVersion': 'v1.30.6', 'kubeProxyVersion': 'v1.30.6', 'operatingSystem': 'linux', 'osImage': 'Debian GNU/Linux 12 (bookworm)'}}})

POD_IPS = {}
def pod_ip(node):
    base = PODCIDR[node].rsplit('.', 1)[0]
    POD_IPS[node] = POD_IPS.get(node, 20) + R.randint(3, 11)
    while any(x in str(POD_IPS[node] % 250) for x in ('37', '85', '19', '42', '96', '22', '16')):
        POD_IPS[node] += 1
    return f'{base[:-len(base.split(".")[-1])]}{int(base.split(".")[-1]) + POD_IPS[node] // 250}.{POD_IPS[node] % 250}'

PODS = {'fra2': [], 'hel1': []}  # (ns, pod, container, node, uid, req_cpu, req_mem, lim_cpu, lim_mem)

def workload(env, ns, app, version, container, port, replicas, rs_hash, rs_created, pods, req, lim, revision,
             old=None, annotations=None, probe='/healthz', ready_pods=None):
    dep_uid = uid(env, 'deploy', ns, app)
    image = f'{REG}/{ns}/{app}:{version}'
    res = {'requests': {'cpu': req[0], 'memory': req[1]}, 'limits': {'cpu': lim[0], 'memory': lim[1]}}
    cont = {'name': container, 'image': image, 'ports': [{'name': 'http', 'containerPort': port, 'protocol': 'TCP'}],
            'resources': res,
            'readinessProbe': {'httpGet': {'path': probe, 'port': port, 'scheme': 'HTTP'}, 'periodSeconds': 10, 'timeoutSeconds': 2, 'failureThreshold': 3, 'successThreshold': 1},
            'terminationMessagePath': '/dev/termination-log', 'terminationMessagePolicy': 'File', 'imagePullPolicy': 'IfNotPresent'}
    nready = sum(1 for p in pods if p.get('ready', True) and p.get('phase', 'Running') == 'Running')
    running = [p for p in pods if p.get('phase', 'Running') == 'Running']
    ann = {'deployment.kubernetes.io/revision': str(revision)}
    ann.update(annotations or {})
    k8s(env, {'apiVersion': 'apps/v1', 'kind': 'Deployment',
              'metadata': {'name': app, 'namespace': ns, 'uid': dep_uid, 'resourceVersion': str(R.randint(10**7, 9 * 10**8)), 'generation': revision + 3,
                           'creationTimestamp': '2026-03-10T09:12:44Z', 'labels': {'app.kubernetes.io/name': app, 'app.kubernetes.io/part-of': ns}, 'annotations': ann},
              'spec': {'replicas': replicas, 'selector': {'matchLabels': {'app.kubernetes.io/name': app}}, 'progressDeadlineSeconds': 600, 'revisionHistoryLimit': 10,
                       'strategy': {'type': 'RollingUpdate', 'rollingUpdate': {'maxSurge': '25%', 'maxUnavailable': '25%'}},
                       'template': {'metadata': {'labels': {'app.kubernetes.io/name': app}}, 'spec': {'containers': [cont], 'restartPolicy': 'Always', 'terminationGracePeriodSeconds': 30}}},
              'status': {'observedGeneration': revision + 3, 'replicas': replicas, 'updatedReplicas': replicas, 'readyReplicas': nready, 'availableReplicas': nready,
                         **({'unavailableReplicas': replicas - nready} if nready < replicas else {}),
                         'conditions': [
                             {'type': 'Available', 'status': 'True' if nready * 4 >= replicas * 3 else 'False',
                              'reason': 'MinimumReplicasAvailable' if nready * 4 >= replicas * 3 else 'MinimumReplicasUnavailable',
                              'message': 'Deployment has minimum availability.' if nready * 4 >= replicas * 3 else 'Deployment does not have minimum availability.',
                              'lastUpdateTime': rs_created, 'lastTransitionTime': rs_created},
                             {'type': 'Progressing', 'status': 'True', 'reason': 'NewReplicaSetAvailable',
                              'message': f'ReplicaSet "{app}-{rs_hash}" has successfully progressed.', 'lastUpdateTime': rs_created, 'lastTransitionTime': '2026-03-10T09:12:44Z'}]}})
    rs_uid = uid(env, 'rs', ns, app, rs_hash)
    def rs(hash_, ver, n, created, rev, ruid):
        k8s(env, {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
                  'metadata': {'name': f'{app}-{hash_}', 'namespace': ns, 'uid': ruid, 'resourceVersion': str(R.randint(10**7, 9 * 10**8)), 'creationTimestamp': created,
                               'labels': {'app.kubernetes.io/name': app, 'pod-template-hash': hash_},
                               'annotations': {'deployment.kubernetes.io/revision': str(rev), 'deployment.kubernetes.io/desired-replicas': str(replicas), 'deployment.kubernetes.io/max-replicas': str(replicas + max(1, replicas // 4))},
                               'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': app, 'uid': dep_uid, 'controller': True, 'blockOwnerDeletion': True}]},
                  'spec': {'replicas': n, 'selector': {'matchLabels': {'app.kubernetes.io/name': app, 'pod-template-hash': hash_}},
                           'template': {'metadata': {'labels': {'app.kubernetes.io/name': app, 'pod-template-hash': hash_}},
                                        'spec': {'containers': [dict(cont, image=f'{REG}/{ns}/{app}:{ver}')]}}},
                  'status': ({'replicas': n, 'fullyLabeledReplicas': n, 'readyReplicas': nready, 'availableReplicas': nready, 'observedGeneration': 2} if n else {'replicas': 0, 'observedGeneration': 3})})
    rs(rs_hash, version, replicas, rs_created, revision, rs_uid)
    if old:
        rs(old[0], old[1], 0, old[2], revision - 1, uid(env, 'rs', ns, app, old[0]))
    eps = []
    for p in pods:
        name = f'{app}-{rs_hash}-{p["sfx"]}'
        created = p.get('created', rs_created)
        node = p['node']
        ip = pod_ip(node)
        puid = uid(env, 'pod', name)
        phase = p.get('phase', 'Running')
        ready = p.get('ready', True) and phase == 'Running'
        cstat = {'name': container, 'image': image, 'imageID': f'{REG}/{ns}/{app}@sha256:' + hx(app, version),
                 'containerID': 'containerd://' + hx(env, name, 'c'), 'ready': ready, 'started': phase == 'Running', 'restartCount': p.get('restarts', 0)}
        started = p.get('started', (datetime.strptime(created, '%Y-%m-%dT%H:%M:%SZ') + timedelta(seconds=4)).strftime('%Y-%m-%dT%H:%M:%SZ'))
        cstat['state'] = {'running': {'startedAt': started}} if phase == 'Running' else {'terminated': {'exitCode': 137, 'reason': 'ContainerStatusUnknown', 'message': 'The container could not be located when the pod was terminated', 'startedAt': created, 'finishedAt': p.get('evicted')}}
        cstat['lastState'] = p.get('last', {})
        readyt = p.get('ready_since', started)
        conds = [{'type': 'PodReadyToStartContainers', 'status': 'True' if phase == 'Running' else 'False', 'lastProbeTime': None, 'lastTransitionTime': created},
                 {'type': 'Initialized', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': created},
                 {'type': 'Ready', 'status': 'True' if ready else 'False', 'lastProbeTime': None, 'lastTransitionTime': readyt,
                  **({} if ready else {'reason': 'ContainersNotReady', 'message': f'containers with unready status: [{container}]'})},
                 {'type': 'ContainersReady', 'status': 'True' if ready else 'False', 'lastProbeTime': None, 'lastTransitionTime': readyt,
                  **({} if ready else {'reason': 'ContainersNotReady', 'message': f'containers with unready status: [{container}]'})},
                 {'type': 'PodScheduled', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': created}]
        status = {'phase': phase, 'hostIP': NODE_IP[node], 'hostIPs': [{'ip': NODE_IP[node]}], 'podIP': ip, 'podIPs': [{'ip': ip}],
                  'startTime': created, 'qosClass': 'Burstable', 'conditions': conds, 'containerStatuses': [cstat]}
        if phase == 'Failed':
            status = {'phase': 'Failed', 'reason': 'Evicted', 'message': p['evict_msg'], 'hostIP': NODE_IP[node], 'hostIPs': [{'ip': NODE_IP[node]}],
                      'startTime': created, 'qosClass': 'Burstable',
                      'conditions': [{'type': 'DisruptionTarget', 'status': 'True', 'reason': 'TerminationByKubelet', 'message': 'The node was low on resource: ephemeral-storage. ', 'lastProbeTime': None, 'lastTransitionTime': p['evicted']}] + conds[1:],
                      'containerStatuses': [cstat]}
        k8s(env, {'apiVersion': 'v1', 'kind': 'Pod',
                  'metadata': {'name': name, 'generateName': f'{app}-{rs_hash}-', 'namespace': ns, 'uid': puid, 'resourceVersion': str(R.randint(10**7, 9 * 10**8)),
                               'creationTimestamp': created, 'labels': {'app.kubernetes.io/name': app, 'pod-template-hash': rs_hash},
                               'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': f'{app}-{rs_hash}', 'uid': rs_uid, 'controller': True, 'blockOwnerDeletion': True}]},
                  'spec': {'nodeName': node, 'containers': [cont], 'restartPolicy': 'Always', 'serviceAccountName': 'default', 'schedulerName': 'default-scheduler'},
                  'status': status})
        if phase == 'Running':
            eps.append({'addresses': [ip], 'conditions': {'ready': ready, 'serving': ready, 'terminating': False}, 'nodeName': node,
                        'targetRef': {'kind': 'Pod', 'name': name, 'namespace': ns, 'uid': puid}})
            PODS[env].append(dict(ns=ns, pod=name, container=container, node=node, uid=puid, req=req, lim=lim, app=app, created=created))
    svc_uid = uid(env, 'svc', ns, app)
    k8s(env, {'apiVersion': 'v1', 'kind': 'Service',
              'metadata': {'name': app, 'namespace': ns, 'uid': svc_uid, 'resourceVersion': str(R.randint(10**7, 9 * 10**8)), 'creationTimestamp': '2026-03-10T09:12:44Z', 'labels': {'app.kubernetes.io/name': app}},
              'spec': {'type': 'ClusterIP', 'clusterIP': f'10.96.{R.randint(1, 250)}.{R.randint(2, 250)}', 'selector': {'app.kubernetes.io/name': app},
                       'ports': [{'name': 'http', 'port': 80, 'targetPort': port, 'protocol': 'TCP'}]}})
    k8s(env, {'apiVersion': 'discovery.k8s.io/v1', 'kind': 'EndpointSlice',
              'metadata': {'name': f'{app}-{hx(env, app, n=5)}', 'generateName': f'{app}-', 'namespace': ns, 'uid': uid(env, 'eps', app), 'resourceVersion': str(R.randint(10**7, 9 * 10**8)),
                           'creationTimestamp': '2026-03-10T09:12:45Z', 'labels': {'kubernetes.io/service-name': app, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
                           'ownerReferences': [{'apiVersion': 'v1', 'kind': 'Service', 'name': app, 'uid': svc_uid, 'controller': True, 'blockOwnerDeletion': True}]},
              'addressType': 'IPv4', 'endpoints': eps, 'ports': [{'name': 'http', 'port': port, 'protocol': 'TCP'}]})
    return image

EVN = {}
def event(env, ns, kind, name, reason, message, etype='Normal', first=None, last=None, count=1, component='kubelet', host=None, obj_uid=None):
    base = 0x18c3e0000000000 + R.randint(0, 0xffffffffff)
    k8s(env, {'apiVersion': 'v1', 'kind': 'Event',
              'metadata': {'name': f'{name}.{base:x}', 'namespace': ns, 'uid': uid(env, 'ev', name, reason, message[:20]), 'resourceVersion': str(R.randint(10**7, 9 * 10**8)), 'creationTimestamp': first},
              'involvedObject': {'kind': kind, **({'namespace': ns} if kind != 'Node' else {}), 'name': name, 'uid': obj_uid or uid(env, kind.lower(), name), 'apiVersion': 'v1' if kind in ('Pod', 'Node') else 'apps/v1',
                                 **({'fieldPath': 'spec.containers{app}'} if kind == 'Pod' and reason in ('Pulled', 'Created', 'Started', 'Unhealthy', 'BackOff') else {})},
              'reason': reason, 'message': message, 'source': {'component': component, **({'host': host} if host else {})},
              'firstTimestamp': first, 'lastTimestamp': last or first, 'count': count, 'type': etype,
              'eventTime': None, 'reportingComponent': component, 'reportingInstance': host or ''})

# ---------------------------------------------------------------- fra2
for ns, c in [('booking', '2026-03-10T09:01:12Z'), ('pricing', '2026-03-10T09:01:14Z'), ('media', '2026-04-22T13:40:09Z')]:
    ns_obj('fra2', ns, c)
for n, ip in NODES['fra2']:
    node_obj('fra2', n, ip, disk_pressure='2026-12-07T11:27:02Z' if n == 'fra2-w06' else None)

workload('fra2', 'booking', 'reservation-api', '2.19.0', 'app', 8080, 3, '85f6c7d9b4', '2026-11-30T10:14:27Z',
         [{'sfx': 'k9w2d', 'node': 'fra2-w01'}, {'sfx': 'p7m4x', 'node': 'fra2-w03'}, {'sfx': 'zq8nb', 'node': 'fra2-w05'}],
         ('1', '1536Mi'), ('2', '2Gi'), 41, probe='/actuator/health/readiness')
workload('fra2', 'booking', 'seat-hold', '1.12.3', 'app', 8080, 2, '6d5b8c7f9', '2026-12-06T14:03:51Z',
         [{'sfx': 'vx6rk', 'node': 'fra2-w02'}, {'sfx': 'f2ljc', 'node': 'fra2-w04'}], ('250m', '256Mi'), ('1', '512Mi'), 17)
OOM_TIMES = ['12:02:14', '12:10:09', '12:18:31', '12:26:02']
workload('fra2', 'pricing', 'fare-engine', '3.8.0', 'app', 8000, 4, '6c8d9b7f4', '2026-12-07T11:47:18Z',
         [{'sfx': 'x7kpl', 'node': 'fra2-w01', 'created': '2026-12-07T11:47:18Z'},
          {'sfx': 'b9mfd', 'node': 'fra2-w02', 'created': '2026-12-07T11:47:18Z'},
          {'sfx': 't4hzs', 'node': 'fra2-w04', 'created': '2026-12-07T11:47:41Z'},
          {'sfx': 'q2wzr', 'node': 'fra2-w05', 'created': '2026-12-07T11:47:41Z', 'restarts': 4, 'started': '2026-12-07T12:26:04Z',
           'ready_since': '2026-12-07T12:26:19Z',
           'last': {'terminated': {'exitCode': 137, 'reason': 'OOMKilled', 'startedAt': '2026-12-07T12:18:33Z', 'finishedAt': '2026-12-07T12:26:02Z',
                                   'containerID': 'containerd://' + hx('fra2', 'q2wzr', 'prev')}}}],
         ('1', '768Mi'), ('2', '1Gi'), 23, old=('5d7c9b8f6', '3.7.2', '2026-12-02T08:51:06Z'),
         annotations={'tripline.io/pipeline-url': 'https://gitlab.tripline.io/pricing/fare-engine/-/pipelines/51873'})
workload('fra2', 'pricing', 'fx-rates-sync', '0.9.1', 'app', 8080, 1, '7b9d4c5f8', '2026-11-12T07:30:11Z',
         [{'sfx': 'zp6wd', 'node': 'fra2-w06', 'created': '2026-11-12T07:30:11Z', 'phase': 'Failed', 'evicted': '2026-12-07T11:21:38Z',
           'evict_msg': 'The node was low on resource: ephemeral-storage. Threshold quantity: 10363174912, available: 9921436Ki. '},
          {'sfx': 'n4c8s', 'node': 'fra2-w03', 'created': '2026-12-07T11:21:39Z'}], ('50m', '128Mi'), ('500m', '256Mi'), 6)
workload('fra2', 'media', 'thumbnailer', '4.2.1', 'worker', 3000, 3, '5f7b9c8d6', '2026-11-25T16:20:48Z',
         [{'sfx': 'kx2lp', 'node': 'fra2-w06', 'created': '2026-11-25T16:20:48Z', 'phase': 'Failed', 'evicted': '2026-12-07T11:21:36Z',
           'evict_msg': 'The node was low on resource: ephemeral-storage. Threshold quantity: 10363174912, available: 9921436Ki. Container worker was using 31457280Ki, request is 0, has larger consumption of ephemeral storage. '},
          {'sfx': 'r8vtm', 'node': 'fra2-w06', 'created': '2026-11-25T16:21:02Z', 'phase': 'Failed', 'evicted': '2026-12-07T11:21:37Z',
           'evict_msg': 'The node was low on resource: ephemeral-storage. Threshold quantity: 10363174912, available: 9921436Ki. Container worker was using 28311552Ki, request is 0, has larger consumption of ephemeral storage. '},
          {'sfx': 'hd5qv', 'node': 'fra2-w03', 'created': '2026-11-25T16:21:15Z'},
          {'sfx': 'w3jzt', 'node': 'fra2-w01', 'created': '2026-12-07T11:21:37Z'},
          {'sfx': 'm6gxp', 'node': 'fra2-w02', 'created': '2026-12-07T11:21:38Z'}], ('500m', '1Gi'), ('2', '2Gi'), 12)

# fra2 events
event('fra2', 'default', 'Node', 'fra2-w06', 'EvictionThresholdMet', 'Attempting to reclaim ephemeral-storage', 'Warning', '2026-12-07T11:21:31Z', host='fra2-w06')
event('fra2', 'default', 'Node', 'fra2-w06', 'NodeHasDiskPressure', 'Node fra2-w06 status is now: NodeHasDiskPressure', 'Normal', '2026-12-07T11:21:33Z', host='fra2-w06')
event('fra2', 'default', 'Node', 'fra2-w06', 'NodeHasNoDiskPressure', 'Node fra2-w06 status is now: NodeHasNoDiskPressure', 'Normal', '2026-12-07T11:27:02Z', host='fra2-w06')
for pod, using in [('thumbnailer-5f7b9c8d6-kx2lp', '31457280Ki'), ('thumbnailer-5f7b9c8d6-r8vtm', '28311552Ki')]:
    event('fra2', 'media', 'Pod', pod, 'Evicted', f'The node was low on resource: ephemeral-storage. Threshold quantity: 10363174912, available: 9921436Ki. Container worker was using {using}, request is 0, has larger consumption of ephemeral storage. ',
          'Warning', '2026-12-07T11:21:3%s' % ('6' if 'kx2' in pod else '7'), host='fra2-w06')
    event('fra2', 'media', 'Pod', pod, 'Killing', 'Stopping container worker', 'Normal', '2026-12-07T11:21:3%s' % ('6' if 'kx2' in pod else '7'), host='fra2-w06')
event('fra2', 'pricing', 'Pod', 'fx-rates-sync-7b9d4c5f8-zp6wd', 'Evicted', 'The node was low on resource: ephemeral-storage. Threshold quantity: 10363174912, available: 9921436Ki. ', 'Warning', '2026-12-07T11:21:38Z', host='fra2-w06')
event('fra2', 'media', 'ReplicaSet', 'thumbnailer-5f7b9c8d6', 'SuccessfulCreate', 'Created pod: thumbnailer-5f7b9c8d6-w3jzt', 'Normal', '2026-12-07T11:21:37Z', component='replicaset-controller')
event('fra2', 'media', 'ReplicaSet', 'thumbnailer-5f7b9c8d6', 'SuccessfulCreate', 'Created pod: thumbnailer-5f7b9c8d6-m6gxp', 'Normal', '2026-12-07T11:21:38Z', component='replicaset-controller')
event('fra2', 'pricing', 'Deployment', 'fare-engine', 'ScalingReplicaSet', 'Scaled up replica set fare-engine-6c8d9b7f4 to 1', 'Normal', '2026-12-07T11:47:18Z', component='deployment-controller')
event('fra2', 'pricing', 'Deployment', 'fare-engine', 'ScalingReplicaSet', 'Scaled down replica set fare-engine-5d7c9b8f6 to 0 from 1', 'Normal', '2026-12-07T11:48:02Z', component='deployment-controller')
for what, cnt in [('Pulled', 'Container image "registry.tripline.io/pricing/fare-engine:3.8.0" already present on machine'), ('Created', 'Created container app'), ('Started', 'Started container app')]:
    event('fra2', 'pricing', 'Pod', 'fare-engine-6c8d9b7f4-q2wzr', what, cnt, 'Normal', '2026-12-07T11:47:44Z', '2026-12-07T12:26:04Z', count=5, host='fra2-w05')
event('fra2', 'pricing', 'Pod', 'fare-engine-6c8d9b7f4-q2wzr', 'Unhealthy', 'Readiness probe failed: Get "http://10.65.64.27:8000/healthz": dial tcp 10.65.64.27:8000: connect: connection refused', 'Warning',
      '2026-12-07T12:02:20Z', '2026-12-07T12:26:10Z', count=4, host='fra2-w05')
# fix the probe IP to the pod's real IP
for o in world['kubernetes']['fra2']:
    if o['kind'] == 'Pod' and o['metadata']['name'] == 'fare-engine-6c8d9b7f4-q2wzr':
        Q2_IP = o['status']['podIP']
for o in world['kubernetes']['fra2']:
    if o['kind'] == 'Event' and o['reason'] == 'Unhealthy':
        o['message'] = o['message'].replace('10.65.64.27', Q2_IP)

# ---------------------------------------------------------------- hel1
for ns, c in [('booking', '2026-03-11T10:40:02Z'), ('pricing', '2026-03-11T10:40:05Z')]:
    ns_obj('hel1', ns, c)
for n, ip in NODES['hel1']:
    node_obj('hel1', n, ip)
workload('hel1', 'booking', 'reservation-api', '2.19.1', 'app', 8080, 3, '6b7c8d9f5', '2026-12-07T09:40:12Z',
         [{'sfx': 'mz7tq', 'node': 'hel1-w01', 'ready': False, 'ready_since': '2026-12-07T11:44:51Z'},
          {'sfx': 'h4kpn', 'node': 'hel1-w03', 'ready': False, 'ready_since': '2026-12-07T11:46:21Z', 'created': '2026-12-07T09:40:38Z'},
          {'sfx': 'c2rxv', 'node': 'hel1-w05', 'created': '2026-12-07T09:41:03Z'}],
         ('1', '1536Mi'), ('2', '2Gi'), 44, old=('85f6c7d9b4', '2.19.0', '2026-11-30T10:21:55Z'), probe='/actuator/health/readiness',
         annotations={'tripline.io/pipeline-url': 'https://gitlab.tripline.io/booking/reservation-api/-/pipelines/51790'})
workload('hel1', 'booking', 'seat-hold', '1.12.3', 'app', 8080, 2, '6d5b8c7f9', '2026-12-06T14:11:09Z',
         [{'sfx': 'rb8tn', 'node': 'hel1-w02'}, {'sfx': 'l5xqd', 'node': 'hel1-w05'}], ('250m', '256Mi'), ('1', '512Mi'), 17)
workload('hel1', 'pricing', 'fare-engine', '3.7.2', 'app', 8000, 2, '5d7c9b8f6', '2026-12-02T09:03:40Z',
         [{'sfx': 'j8vnc', 'node': 'hel1-w02'}, {'sfx': 's3kfw', 'node': 'hel1-w04'}], ('1', '768Mi'), ('2', '1Gi'), 22)
workload('hel1', 'pricing', 'fx-rates-sync', '0.9.1', 'app', 8080, 1, '7b9d4c5f8', '2026-11-12T07:44:50Z',
         [{'sfx': 'g7wpm', 'node': 'hel1-w03'}], ('50m', '128Mi'), ('500m', '256Mi'), 6)
for pod, first, cnt in [('reservation-api-6b7c8d9f5-mz7tq', '2026-12-07T11:44:31Z', 271), ('reservation-api-6b7c8d9f5-h4kpn', '2026-12-07T11:46:01Z', 262)]:
    event('hel1', 'booking', 'Pod', pod, 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', 'Warning', first, '2026-12-07T12:29:51Z', count=cnt,
          host='hel1-w01' if 'mz7' in pod else 'hel1-w03')
event('hel1', 'booking', 'Deployment', 'reservation-api', 'ScalingReplicaSet', 'Scaled up replica set reservation-api-6b7c8d9f5 to 1', 'Normal', '2026-12-07T09:40:12Z', component='deployment-controller')
event('hel1', 'booking', 'Deployment', 'reservation-api', 'ScalingReplicaSet', 'Scaled down replica set reservation-api-85f6c7d9b4 to 0 from 1', 'Normal', '2026-12-07T09:41:19Z', component='deployment-controller')

# ---------------------------------------------------------------- metrics
def series(env, labels, values, start=T0, step='60s'):
    world['metrics'][env].append({'labels': labels, 'start': ts(start), 'step': step, 'values': values})

ING = {'job': 'ingress-nginx', 'controller_class': 'k8s.io/ingress-nginx', 'controller_namespace': 'ingress-nginx'}
CPOD = {'fra2': 'ingress-nginx-controller-7d9c6b5f48-hq2vz', 'hel1': 'ingress-nginx-controller-7d9c6b5f48-ws4lc'}
HOSTS = {'reservation-api': 'booking.tripline.io', 'seat-hold': 'booking.tripline.io', 'fare-engine': 'fares.tripline.io', 'thumbnailer': 'img.tripline.io'}
PATHS = {'reservation-api': '/api/v2/reservations', 'seat-hold': '/api/v2/holds', 'fare-engine': '/', 'thumbnailer': '/'}

def ilabels(env, ns, app, method, status):
    return dict(__name__='nginx_ingress_controller_requests', **ING, controller_pod=CPOD[env], namespace=ns, ingress=app, service=app,
                host=HOSTS[app], path=PATHS[app], method=method, status=status, canary='')

def counter(start_value, per_min):  # per_min: function(minute index) -> increment
    v = start_value; out = [v]
    for i in range(1, N):
        v += per_min(i); out.append(v)
    return out

def rate_const(rps, jitter=0.0):
    return lambda i: int(round(rps * 60 + (R.uniform(-jitter, jitter) * 60 if jitter else 0)))

# requests
series('fra2', ilabels('fra2', 'booking', 'reservation-api', 'GET', '200'), counter(8812904411, lambda i: 10890))   # 181.5/s
series('fra2', ilabels('fra2', 'booking', 'reservation-api', 'GET', '404'), counter(71204918, lambda i: 90))        # 1.5/s
series('fra2', ilabels('fra2', 'booking', 'seat-hold', 'POST', '201'), counter(1730455102, lambda i: 2400))
series('fra2', ilabels('fra2', 'pricing', 'fare-engine', 'POST', '200'), counter(4205331870, lambda i: 6000))        # 100/s
series('fra2', ilabels('fra2', 'media', 'thumbnailer', 'GET', '200'), counter(602118345, lambda i: 720))
series('hel1', ilabels('hel1', 'booking', 'reservation-api', 'GET', '200'), counter(4471902256, lambda i: 5760))    # 96.0/s
ERR_MIN = {}  # minute index -> number of 500s (37 in total, 11:42..12:28)
err_minutes = [72, 73, 73, 74, 75, 76, 76, 77, 79, 80, 81, 81, 82, 83, 85, 86, 86, 87, 88, 90, 91, 91, 92, 93, 94, 96, 97, 97, 98, 100, 101, 103, 104, 106, 108, 110, 118]
assert len(err_minutes) == 37
for m in err_minutes: ERR_MIN[m] = ERR_MIN.get(m, 0) + 1
series('hel1', ilabels('hel1', 'booking', 'reservation-api', 'GET', '500'), counter(1102, lambda i: ERR_MIN.get(i - 1, 0)))
series('hel1', ilabels('hel1', 'booking', 'seat-hold', 'POST', '201'), counter(812665190, lambda i: 1320))
series('hel1', ilabels('hel1', 'pricing', 'fare-engine', 'POST', '200'), counter(2113880412, lambda i: 6000))

# fare-engine latency histograms: per-minute cumulative bucket increments (6000 req/min)
LE = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']
OLD = [60, 240, 1200, 3000, 5100, 5850, 5964, 5994, 6000, 6000, 6000, 6000]   # p95 = 0.1 + 0.15*600/750 = 0.22 s
NEW = [0, 30, 300, 1200, 3000, 4800, 5420, 5820, 5982, 6000, 6000, 6000]      # p95 = 0.5 + 0.5*280/400 = 0.85 s
HEL = [60, 300, 1500, 3300, 5340, 5940, 5990, 6000, 6000, 6000, 6000, 6000]   # p95 = 0.1 + 0.15*360/600 = 0.19 s
SUM_OLD, SUM_NEW, SUM_HEL = 6000 * 0.071, 6000 * 0.246, 6000 * 0.063
DEPLOY_MIN = mi(datetime(2026, 12, 7, 11, 48, tzinfo=timezone.utc))  # minute 78: first full minute on 3.8.0
def hist(env, app, ns, shape_of, sum_of, base):
    bl = {k: v for k, v in ilabels(env, ns, app, 'POST', '200').items() if k != '__name__'}
    for j, le in enumerate(LE):
        series(env, dict(__name__='nginx_ingress_controller_request_duration_seconds_bucket', **bl, le=le),
               counter(int(base * (shape_of(0)[j] / 6000)), lambda i, j=j: shape_of(i)[j]))
    series(env, dict(__name__='nginx_ingress_controller_request_duration_seconds_count', **bl), counter(base, lambda i: 6000))
    s = [round(base * 0.07, 3)]
    for i in range(1, N): s.append(round(s[-1] + sum_of(i), 3))
    series(env, dict(__name__='nginx_ingress_controller_request_duration_seconds_sum', **bl), s)
hist('fra2', 'fare-engine', 'pricing', lambda i: NEW if i > DEPLOY_MIN else OLD, lambda i: SUM_NEW if i > DEPLOY_MIN else SUM_OLD, 4205331870)
hist('hel1', 'fare-engine', 'pricing', lambda i: HEL, lambda i: SUM_HEL, 2113880412)

# per-pod cAdvisor / kube-state-metrics
CPU = {'fare-engine-6c8d9b7f4-x7kpl': 1.92, 'fare-engine-6c8d9b7f4-b9mfd': 1.41, 'fare-engine-6c8d9b7f4-t4hzs': 0.93, 'fare-engine-6c8d9b7f4-q2wzr': 0.38,
       'fx-rates-sync-7b9d4c5f8-n4c8s': 0.02, 'seat-hold-6d5b8c7f9-rb8tn': 0.42, 'seat-hold-6d5b8c7f9-l5xqd': 0.42,
       'fare-engine-5d7c9b8f6-j8vnc': 0.61, 'fare-engine-5d7c9b8f6-s3kfw': 0.58}
MEM = {'fare-engine-6c8d9b7f4-x7kpl': 640 * 2**20, 'fare-engine-6c8d9b7f4-b9mfd': 618 * 2**20, 'fare-engine-6c8d9b7f4-t4hzs': 597 * 2**20}
def parse_q(q):
    if q.endswith('m'): return int(q[:-1]) / 1000
    if q.endswith('Mi'): return int(q[:-2]) * 2**20
    if q.endswith('Gi'): return int(q[:-2]) * 2**30
    return float(q)
oom_min = [mi(datetime.strptime('2026-12-07T' + t + 'Z', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=timezone.utc)) for t in OOM_TIMES]
for env in ('fra2', 'hel1'):
    for p in PODS[env]:
        created = datetime.strptime(p['created'], '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=timezone.utc)
        start = max(T0, created.replace(second=0) + timedelta(minutes=1))
        n = N - mi(start)
        ksm = {'job': 'kube-state-metrics', 'namespace': p['ns'], 'pod': p['pod'], 'uid': p['uid'], 'container': p['container']}
        for metric, vals in [('kube_pod_container_resource_requests', p['req']), ('kube_pod_container_resource_limits', p['lim'])]:
            for res, q, unit in [('cpu', vals[0], 'core'), ('memory', vals[1], 'byte')]:
                v = parse_q(q)
                series(env, dict(__name__=metric, **ksm, node=p['node'], resource=res, unit=unit), [v] * n, start=start)
        cid = '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope' % (p['uid'].replace('-', '_'), hx(env, p['pod'], 'c'))
        cad = {'job': 'kubelet', 'metrics_path': '/metrics/cadvisor', 'instance': NODE_IP[p['node']] + ':10250', 'node': p['node'],
               'namespace': p['ns'], 'pod': p['pod'], 'container': p['container'], 'id': cid}
        rate = CPU.get(p['pod'], {'reservation-api': 0.55, 'seat-hold': 0.31, 'thumbnailer': 0.74, 'fx-rates-sync': 0.02, 'fare-engine': 0.6}[p['app']])
        q2 = p['pod'].endswith('q2wzr')
        cpu, mem, restarts = [], [], []
        c = round(R.uniform(2000, 90000), 3); rc = 0; m_since = 0
        for i in range(n):
            gi = mi(start) + i
            if q2 and gi in oom_min:
                c = 0.0; rc += 1; m_since = 0
            c = round(c + rate * 60, 3) if i else c
            cpu.append(c)
            if q2:
                mem.append(int((300 + 98 * m_since) * 2**20) if m_since < 8 else int(1022 * 2**20)); m_since += 1
            elif p['pod'] in MEM:
                mem.append(MEM[p['pod']] + R.randint(-3, 3) * 2**20)
            else:
                mem.append(int(parse_q(p['req'][1]) * R.uniform(0.55, 0.6)))
            restarts.append(rc)
        series(env, dict(__name__='container_cpu_usage_seconds_total', **cad), cpu, start=start)
        series(env, dict(__name__='container_memory_working_set_bytes', **cad), mem, start=start)
        series(env, dict(__name__='kube_pod_container_status_restarts_total', **ksm), restarts, start=start)
        if q2:
            series(env, dict(__name__='kube_pod_container_status_last_terminated_reason', **ksm, reason='OOMKilled'),
                   [1 if (mi(start) + i) >= oom_min[0] else 0 for i in range(n)][oom_min[0] - mi(start):], start=start + timedelta(minutes=oom_min[0] - mi(start)))
    # deployment replicas
for env, deps in [('fra2', [('booking', 'reservation-api', 3, 3), ('booking', 'seat-hold', 2, 2), ('pricing', 'fare-engine', 4, 4), ('pricing', 'fx-rates-sync', 1, 1), ('media', 'thumbnailer', 3, 3)]),
                  ('hel1', [('booking', 'reservation-api', 3, 1), ('booking', 'seat-hold', 2, 2), ('pricing', 'fare-engine', 2, 2), ('pricing', 'fx-rates-sync', 1, 1)])]:
    for ns, d, spec, avail in deps:
        series(env, {'__name__': 'kube_deployment_spec_replicas', 'job': 'kube-state-metrics', 'namespace': ns, 'deployment': d}, [spec] * 25, step='300s')
        vals = [spec] * 25
        if env == 'hel1' and d == 'reservation-api':
            vals = [3] * 15 + [2, 1] + [1] * 8   # 11:45 -> 2, 11:50 -> 1
        series(env, {'__name__': 'kube_deployment_status_replicas_available', 'job': 'kube-state-metrics', 'namespace': ns, 'deployment': d}, vals, step='300s')
# nodes: memory available (node_exporter)
MEMAVAIL = {'fra2-w01': 14.2, 'fra2-w02': 16.8, 'fra2-w03': 18.1, 'fra2-w04': 15.5, 'fra2-w05': 17.3, 'fra2-w06': 21.6,
            'hel1-w01': 12.7, 'hel1-w02': 9.4, 'hel1-w03': 11.9, 'hel1-w04': 1.8, 'hel1-w05': 13.3}
for env in ('fra2', 'hel1'):
    for n, ip in NODES[env]:
        lab = {'job': 'node-exporter', 'instance': f'{ip}:9100', 'node': n}
        series(env, dict(__name__='node_memory_MemTotal_bytes', **lab), [33722675200] * 25, step='300s')
        series(env, dict(__name__='node_memory_MemAvailable_bytes', **lab), [int((MEMAVAIL[n] + R.uniform(-0.04, 0.04)) * 2**30) for _ in range(25)], step='300s')
        fs = [int(R.uniform(0.42, 0.6) * 106104647680)] * 25
        if n == 'fra2-w06':
            fs = [int(106104647680 * x) for x in [0.31, 0.27, 0.22, 0.17, 0.13, 0.11, 0.095, 0.094, 0.38, 0.39, 0.39] + [0.4] * 14]
        series(env, {'__name__': 'node_filesystem_avail_bytes', **lab, 'device': '/dev/vda1', 'fstype': 'ext4', 'mountpoint': '/'}, fs, step='300s')

# ---------------------------------------------------------------- logs
def fb(pod, ns, container, node, **kw):
    return {'kubernetes': {'namespace_name': ns, 'pod_name': pod, 'container_name': container, 'host': node,
                           'labels': {'app.kubernetes.io/name': pod.rsplit('-', 2)[0]}}, **kw}

# hel1 reservation-api (Spring Boot 3.3, logback JSON-ish via fluent-bit: the raw line kept in `log`)
book = []
def spring(t, level, thread, logger, msg, pod, node):
    line = f'{t.strftime("%Y-%m-%dT%H:%M:%S.")}{t.microsecond // 1000:03d}Z {level:>5} 1 --- [reservation-api] [{thread}] {logger:<40} : {msg}'
    book.append(dict(fb(pod, 'booking', 'app', node), **{'@timestamp': ts(t, True), 'stream': 'stdout', 'level': level, 'logger_name': logger, 'thread_name': thread, 'message': msg, 'log': line}))
PODS_H = [('reservation-api-6b7c8d9f5-mz7tq', 'hel1-w01'), ('reservation-api-6b7c8d9f5-h4kpn', 'hel1-w03'), ('reservation-api-6b7c8d9f5-c2rxv', 'hel1-w05')]
for p, n in PODS_H:
    t = datetime(2026, 12, 7, 9, 40, 31 if 'mz7' in p else 52, tzinfo=timezone.utc)
    spring(t, 'INFO', 'main', 'c.t.booking.ReservationApiApplication', 'Starting ReservationApiApplication v2.19.1 using Java 21.0.5 with PID 1 (/app/app.jar started by app in /app)', p, n)
    spring(t + timedelta(seconds=3), 'INFO', 'main', 'com.zaxxer.hikari.HikariDataSource', 'HikariPool-1 - Starting...', p, n)
    spring(t + timedelta(seconds=3, milliseconds=412), 'INFO', 'main', 'com.zaxxer.hikari.pool.HikariPool', 'HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@5b1f29fa', p, n)
    spring(t + timedelta(seconds=3, milliseconds=415), 'INFO', 'main', 'com.zaxxer.hikari.HikariDataSource', 'HikariPool-1 - Start completed.', p, n)
    spring(t + timedelta(seconds=9), 'INFO', 'main', 'o.s.b.w.embedded.tomcat.TomcatWebServer', "Tomcat started on port 8080 (http) with context path '/'", p, n)
    spring(t + timedelta(seconds=9, milliseconds=80), 'INFO', 'main', 'c.t.booking.ReservationApiApplication', 'Started ReservationApiApplication in 11.204 seconds (process running for 12.011)', p, n)
# normal noise 10:30..12:30
for k in range(70):
    t = T0 + timedelta(seconds=R.randint(0, 7190), milliseconds=R.randint(0, 999))
    p, n = R.choice(PODS_H)
    spring(t, 'INFO', f'http-nio-8080-exec-{R.randint(1, 40)}', 'c.t.booking.api.ReservationController',
           f'reservation RSV-{R.randint(4100000, 4199999)} confirmed for fare FR-{R.randint(10000, 99999)} in {R.randint(18, 95)}ms', p, n)
waiting = [3, 5, 9, 12, 14, 17, 19, 23, 21, 26, 24, 28, 22, 27, 31, 25, 29, 30, 26, 33, 28, 24, 31, 27, 29, 35, 22, 30, 26, 28, 21, 25, 19, 23, 17, 20, 11]
for k, m in enumerate(err_minutes):
    t = T0 + timedelta(minutes=m, seconds=R.randint(1, 58), milliseconds=R.randint(0, 999))
    p, n = PODS_H[k % 3] if k % 5 else PODS_H[0]
    th = f'http-nio-8080-exec-{R.randint(1, 40)}'
    spring(t - timedelta(milliseconds=2), 'WARN', th, 'o.h.engine.jdbc.spi.SqlExceptionHelper', 'SQL Error: 0, SQLState: null', p, n)
    spring(t, 'ERROR', th, 'o.h.engine.jdbc.spi.SqlExceptionHelper',
           f'HikariPool-1 - Connection is not available, request timed out after 30000ms (total=8, active=8, idle=0, waiting={waiting[k]})', p, n)
book.sort(key=lambda d: d['@timestamp'])
world['logs']['hel1']['k8s-booking-2026.12.07'] = book

# fra2 pricing: gunicorn + app logs of fare-engine
pricing = []
def guni(t, pod, node, level, msg, app_logger=None):
    if app_logger:
        line = f'{t.strftime("%Y-%m-%d %H:%M:%S")},{t.microsecond // 1000:03d} {level} [{app_logger}] {msg}'
    else:
        line = f'[{t.strftime("%Y-%m-%d %H:%M:%S")} +0000] [{1 if "Starting" in msg or "Listening" in msg or "Using" in msg else 7}] [{level}] {msg}'
    pricing.append(dict(fb(pod, 'pricing', 'app', node), **{'@timestamp': ts(t, True), 'stream': 'stderr', 'log': line}))
    return line
FE = [('fare-engine-6c8d9b7f4-x7kpl', 'fra2-w01'), ('fare-engine-6c8d9b7f4-b9mfd', 'fra2-w02'), ('fare-engine-6c8d9b7f4-t4hzs', 'fra2-w04'), ('fare-engine-6c8d9b7f4-q2wzr', 'fra2-w05')]
def boot(t, pod, node):
    out = [guni(t, pod, node, 'INFO', 'Starting gunicorn 22.0.0'),
           guni(t + timedelta(milliseconds=3), pod, node, 'INFO', 'Listening at: http://0.0.0.0:8000 (1)'),
           guni(t + timedelta(milliseconds=4), pod, node, 'INFO', 'Using worker: gthread'),
           guni(t + timedelta(milliseconds=9), pod, node, 'INFO', 'Booting worker with pid: 7'),
           guni(t + timedelta(seconds=11, milliseconds=420), pod, node, 'INFO', 'fare-engine 3.8.0: loaded dense fare matrix, 1843221 routes, 612.4 MiB resident', 'fare_engine.matrix')]
    return out
cur_q2 = []; prev_q2 = []
for p, n in FE:
    t = datetime(2026, 12, 7, 11, 47, 21 if p[-5:] in ('x7kpl', 'b9mfd') else 44, tzinfo=timezone.utc)
    lines = boot(t, p, n)
    if p.endswith('q2wzr'):
        starts = [t] + [datetime.strptime('2026-12-07T' + x + 'Z', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=timezone.utc) + timedelta(seconds=2) for x in OOM_TIMES]
        for si, st in enumerate(starts):
            ls = lines if si == 0 else boot(st, p, n)
            end = datetime.strptime('2026-12-07T' + OOM_TIMES[si] + 'Z', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=timezone.utc) if si < 4 else NOW
            k = 0
            tt = st + timedelta(seconds=40)
            while tt < end - timedelta(seconds=30):
                ls.append(guni(tt, p, n, 'INFO', f'recomputed fare bucket {R.choice(["LH", "AY", "SK", "BT", "LX"])}-{R.randint(100, 999)}: {R.randint(1200, 9800)} fares, matrix cache {min(1015, 612 + 55 * (k + 1)):.0f} MiB', 'fare_engine.cache'))
                k += 1; tt += timedelta(seconds=R.randint(50, 80))
            if si < 4:
                ls.append(guni(end - timedelta(seconds=6), p, n, 'WARNING', f'matrix cache above soft limit: {1008 + si} MiB resident, evicting cold routes', 'fare_engine.cache'))
            if si == 3: prev_q2 = ls
            if si == 4: cur_q2 = ls
    else:
        tt = t + timedelta(seconds=45)
        while tt < NOW:
            guni(tt, p, n, 'INFO', f'recomputed fare bucket {R.choice(["LH", "AY", "SK", "BT", "LX"])}-{R.randint(100, 999)}: {R.randint(1200, 9800)} fares, matrix cache {R.randint(598, 641)} MiB', 'fare_engine.cache')
            tt += timedelta(minutes=R.randint(4, 9))
pricing.sort(key=lambda d: d['@timestamp'])
world['logs']['fra2']['k8s-pricing-2026.12.07'] = pricing
world['pod_logs']['fra2']['pricing/fare-engine-6c8d9b7f4-q2wzr/app'] = '\n'.join(cur_q2) + '\n'
world['pod_logs']['fra2']['pricing/fare-engine-6c8d9b7f4-q2wzr/app/previous'] = '\n'.join(prev_q2) + '\n'

# fra2 media: thumbnailer (Node.js, pino JSON lines)
media = []
TH = [('thumbnailer-5f7b9c8d6-kx2lp', 'fra2-w06'), ('thumbnailer-5f7b9c8d6-r8vtm', 'fra2-w06'), ('thumbnailer-5f7b9c8d6-hd5qv', 'fra2-w03')]
def pino(t, pod, node, level, msg, **extra):
    rec = {'level': level, 'time': int(t.timestamp() * 1000), 'pid': 1, 'hostname': pod, 'msg': msg, **extra}
    media.append(dict(fb(pod, 'media', 'worker', node), **{'@timestamp': ts(t, True), 'stream': 'stdout', 'log': json.dumps(rec)}))
for k in range(40):
    t = T0 + timedelta(seconds=R.randint(0, 3050))
    p, n = R.choice(TH)
    pino(t, p, n, 30, 'thumbnail rendered', key=f'listing/{R.randint(100000, 999999)}/cover.jpg', width=R.choice([320, 640, 1280]), ms=R.randint(40, 380))
for k, (sec, p) in enumerate([(2710, 0), (2790, 1), (2905, 0), (2990, 1), (3010, 1), (3025, 0)]):
    t = T0 + timedelta(seconds=sec)
    pod, n = TH[p]
    pino(t, pod, n, 50, 'failed to render thumbnail', err={'type': 'Error', 'message': 'Input file contains unsupported image format', 'stack': 'Error: Input file contains unsupported image format'},
         key=f'listing/{R.randint(100000, 999999)}/raw.heic')
for sec, p in [(3040, 0), (3044, 1), (3051, 0), (3055, 1)]:
    t = T0 + timedelta(seconds=sec)
    pod, n = TH[p]
    pino(t, pod, n, 50, 'cache write failed', err={'type': 'Error', 'code': 'ENOSPC', 'message': "ENOSPC: no space left on device, write", 'stack': "Error: ENOSPC: no space left on device, write"}, path=f'/var/cache/thumbs/{hx(str(sec), n=2)}/{hx(str(sec), "f", n=16)}.webp')
media.sort(key=lambda d: d['@timestamp'])
world['logs']['fra2']['k8s-media-2026.12.07'] = media

# fra2 booking noise (reservation-api healthy)
fb_book = []
for k in range(30):
    t = T0 + timedelta(seconds=R.randint(0, 7190), milliseconds=R.randint(0, 999))
    p, n = R.choice([('reservation-api-85f6c7d9b4-k9w2d', 'fra2-w01'), ('reservation-api-85f6c7d9b4-p7m4x', 'fra2-w03'), ('reservation-api-85f6c7d9b4-zq8nb', 'fra2-w05')])
    msg = f'reservation RSV-{R.randint(4100000, 4199999)} confirmed for fare FR-{R.randint(10000, 99999)} in {R.randint(18, 95)}ms'
    th = f'http-nio-8080-exec-{R.randint(1, 40)}'
    line = f'{t.strftime("%Y-%m-%dT%H:%M:%S.")}{t.microsecond // 1000:03d}Z  INFO 1 --- [reservation-api] [{th}] c.t.booking.api.ReservationController     : {msg}'
    fb_book.append(dict(fb(p, 'booking', 'app', n), **{'@timestamp': ts(t, True), 'stream': 'stdout', 'level': 'INFO', 'logger_name': 'c.t.booking.api.ReservationController', 'thread_name': th, 'message': msg, 'log': line}))
fb_book.sort(key=lambda d: d['@timestamp'])
world['logs']['fra2']['k8s-booking-2026.12.07'] = fb_book
# hel1 pricing noise
hp = []
for k in range(20):
    t = T0 + timedelta(seconds=R.randint(0, 7190))
    p, n = R.choice([('fare-engine-5d7c9b8f6-j8vnc', 'hel1-w02'), ('fare-engine-5d7c9b8f6-s3kfw', 'hel1-w04')])
    line = f'{t.strftime("%Y-%m-%d %H:%M:%S")},{R.randint(0, 999):03d} INFO [fare_engine.cache] recomputed fare bucket {R.choice(["LH", "AY", "SK"])}-{R.randint(100, 999)}: {R.randint(1200, 9800)} fares'
    hp.append(dict(fb(p, 'pricing', 'app', n), **{'@timestamp': ts(t, True), 'stream': 'stderr', 'log': line}))
hp.sort(key=lambda d: d['@timestamp'])
world['logs']['hel1']['k8s-pricing-2026.12.07'] = hp

# hel1 reservation-api pod log (current container, tail)
tail = [d['log'] for d in book if d['kubernetes']['pod_name'] == 'reservation-api-6b7c8d9f5-mz7tq']
world['pod_logs']['hel1']['booking/reservation-api-6b7c8d9f5-mz7tq/app'] = '\n'.join(tail) + '\n'

# ---------------------------------------------------------------- gitlab
GL = 'https://gitlab.tripline.io'
USERS = {'l.garipova': 311, 't.nurmagambetov': 287, 'a.vainio': 342, 'm.haddad': 356, 'o.lindqvist': 298}
def user(u): return {'id': USERS[u], 'username': u, 'name': u, 'state': 'active', 'locked': False, 'avatar_url': f'{GL}/uploads/-/system/user/avatar/{USERS[u]}/avatar.png', 'web_url': f'{GL}/{u}'}
projects = [(2210, 'booking/reservation-api'), (2214, 'pricing/fare-engine'), (2217, 'booking/seat-hold'), (2231, 'media/thumbnailer')]
world['gitlab']['projects'] = [{'id': i, 'name': p.split('/')[1], 'path_with_namespace': p, 'default_branch': 'main', 'web_url': f'{GL}/{p}', 'created_at': '2026-02-16T11:20:04.118Z'} for i, p in projects]
commits = [
    (2210, 'd41a7c93e5f20b8614c7a9e3f05d2b68c1e4a7f9', 'Cap Hikari pool at 8 connections per pod', 'Cap Hikari pool at 8 connections per pod\n\npgbouncer on pg-booking-01 allows 60 client connections;\n3 pods x 20 plus batch jobs went over the limit.\n\nSets spring.datasource.hikari.maximum-pool-size=8.\n', 'o.lindqvist', '2026-12-04T16:02:11.000+02:00', 't.nurmagambetov', '2026-12-07T11:58:40.000+03:00', 'v2.19.1'),
    (2214, '7e2b9f04c6a18d35e90b4f7a2c6d1e83b5f09a4c', 'Keep dense fare matrix in memory for all routes', 'Keep dense fare matrix in memory for all routes\n\nDrops the on-disk LMDB lookup; p50 of /quote should go down.\n\nCloses PRC-882\n', 'm.haddad', '2026-12-05T18:44:02.000+01:00', 'l.garipova', '2026-12-07T14:10:27.000+03:00', 'v3.8.0'),
    (2217, 'a6c3e81f27b9d0456e1f8a2c4b7d903e5f16c2b8', 'Release hold when payment intent is cancelled', 'Release hold when payment intent is cancelled\n', 'a.vainio', '2026-12-06T13:12:45.000+02:00', 'a.vainio', '2026-12-06T15:40:03.000+03:00', 'v1.12.3'),
]
world['gitlab']['commits'] = [{'id': c[1], 'project_id': c[0], 'short_id': c[1][:8], 'title': c[2], 'message': c[3], 'author_name': c[4], 'author_email': f'{c[4]}@tripline.io',
                               'authored_date': c[5], 'committer_name': c[6], 'committer_email': f'{c[6]}@tripline.io', 'committed_date': c[7], 'created_at': c[7],
                               'parent_ids': [hx(c[1], 'parent', n=40)], 'web_url': f'{GL}/{dict(projects)[c[0]]}/-/commit/{c[1]}'} for c in commits]
CM = {c[0]: c for c in commits}
pipelines, jobs = [], []
def pipeline(pid, proj, ref, who, created, finished, status, jobdefs):
    c = CM[proj]
    path = dict(projects)[proj]
    pipelines.append({'id': pid, 'iid': pid - 51000, 'project_id': proj, 'sha': c[1], 'ref': ref, 'status': status, 'source': 'push', 'tag': True,
                      'created_at': created, 'updated_at': finished or created, 'started_at': created, 'finished_at': finished, 'user': user(who),
                      'web_url': f'{GL}/{path}/-/pipelines/{pid}'})
    for jid, name, stage, jst, st, fin, runner in jobdefs:
        j = {'id': jid, 'project_id': proj, 'name': name, 'stage': stage, 'status': jst, 'ref': ref, 'tag': True, 'allow_failure': False,
             'created_at': created, 'started_at': st, 'finished_at': fin,
             'duration': (datetime.fromisoformat(fin.replace('Z', '+00:00')) - datetime.fromisoformat(st.replace('Z', '+00:00'))).total_seconds() if st and fin else None,
             'user': user(who),
             'commit': {'id': c[1], 'short_id': c[1][:8], 'title': c[2], 'message': c[3], 'author_name': c[4], 'author_email': f'{c[4]}@tripline.io', 'authored_date': c[5],
                        'committer_name': c[6], 'committer_email': f'{c[6]}@tripline.io', 'committed_date': c[7], 'created_at': c[7]},
             'pipeline': {'id': pid, 'project_id': proj, 'ref': ref, 'sha': c[1], 'status': status},
             'runner': ({'id': runner[0], 'description': runner[1], 'active': True, 'is_shared': runner[0] < 50} if runner else None),
             'web_url': f'{GL}/{path}/-/jobs/{jid}'}
        jobs.append(j)
pipeline(51790, 2210, 'v2.19.1', 't.nurmagambetov', '2026-12-07T09:02:11.504Z', '2026-12-07T09:41:20.880Z', 'success', [
    (8204411, 'build', 'build', 'success', '2026-12-07T09:02:15.220Z', '2026-12-07T09:09:48.613Z', (14, 'docker-builder-02')),
    (8204412, 'test', 'test', 'success', '2026-12-07T09:09:50.004Z', '2026-12-07T09:21:37.150Z', (14, 'docker-builder-02')),
    (8204415, 'deploy:hel1', 'deploy', 'success', '2026-12-07T09:39:02.771Z', '2026-12-07T09:41:20.880Z', (88, 'k8s-runner-hel1')),
    (8204416, 'deploy:fra2', 'deploy', 'manual', None, None, None)])
pipeline(51873, 2214, 'v3.8.0', 'l.garipova', '2026-12-07T11:12:40.318Z', '2026-12-07T11:48:15.402Z', 'success', [
    (8209930, 'build', 'build', 'success', '2026-12-07T11:12:44.901Z', '2026-12-07T11:19:02.337Z', (14, 'docker-builder-02')),
    (8209931, 'test', 'test', 'success', '2026-12-07T11:19:04.118Z', '2026-12-07T11:31:55.940Z', (15, 'docker-builder-03')),
    (8209934, 'deploy:fra2', 'deploy', 'success', '2026-12-07T11:46:40.552Z', '2026-12-07T11:48:15.402Z', (87, 'k8s-runner-fra2')),
    (8209935, 'deploy:hel1', 'deploy', 'manual', None, None, None)])
pipeline(51702, 2217, 'v1.12.3', 'a.vainio', '2026-12-06T12:41:09.660Z', '2026-12-06T14:12:30.114Z', 'success', [
    (8198850, 'build', 'build', 'success', '2026-12-06T12:41:13.002Z', '2026-12-06T12:45:51.700Z', (15, 'docker-builder-03')),
    (8198853, 'deploy:fra2', 'deploy', 'success', '2026-12-06T14:02:40.515Z', '2026-12-06T14:04:31.092Z', (87, 'k8s-runner-fra2')),
    (8198854, 'deploy:hel1', 'deploy', 'success', '2026-12-06T14:10:02.377Z', '2026-12-06T14:12:30.114Z', (88, 'k8s-runner-hel1'))])
world['gitlab']['pipelines'] = pipelines
world['gitlab']['jobs'] = jobs
world['gitlab']['deployments'] = [
    {'id': 90411, 'iid': 412, 'ref': 'v2.19.1', 'sha': CM[2210][1], 'project_id': 2210, 'created_at': '2026-12-07T09:39:02.771Z', 'updated_at': '2026-12-07T09:41:20.880Z', 'status': 'success',
     'user': user('t.nurmagambetov'), 'environment': {'id': 612, 'name': 'hel1', 'external_url': 'https://booking.tripline.io'}, 'deployable': {'id': 8204415, 'name': 'deploy:hel1', 'status': 'success'}},
    {'id': 90458, 'iid': 301, 'ref': 'v3.8.0', 'sha': CM[2214][1], 'project_id': 2214, 'created_at': '2026-12-07T11:46:40.552Z', 'updated_at': '2026-12-07T11:48:15.402Z', 'status': 'success',
     'user': user('l.garipova'), 'environment': {'id': 640, 'name': 'fra2', 'external_url': 'https://fares.tripline.io'}, 'deployable': {'id': 8209934, 'name': 'deploy:fra2', 'status': 'success'}},
]

# ---------------------------------------------------------------- audit
def audit(env, t, ns, name, image, job, pipe, sha, runner_pod, ip):
    base = {'kind': 'Event', 'apiVersion': 'audit.k8s.io/v1', 'stage': 'ResponseComplete',
            'user': {'username': 'system:serviceaccount:ci:deployer', 'uid': uid(env, 'sa-deployer'),
                     'groups': ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
                     'extra': {'authentication.kubernetes.io/pod-name': [runner_pod]}},
            'sourceIPs': [ip], 'userAgent': 'kubectl/v1.30.5 (linux/amd64) kubernetes/74e84a9',
            'objectRef': {'resource': 'deployments', 'namespace': ns, 'name': name, 'apiGroup': 'apps', 'apiVersion': 'v1'},
            'responseStatus': {'metadata': {}, 'code': 200},
            'annotations': {'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': f'RBAC: allowed by RoleBinding "ci-deployer/{ns}" of ClusterRole "ci-deployer" to ServiceAccount "deployer/ci"'}}
    world['audit'][env].append(dict(base, level='Request', auditID=uid(env, 'audit', name, t), verb='patch',
        requestURI=f'/apis/apps/v1/namespaces/{ns}/deployments/{name}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict',
        requestObject={'metadata': {'annotations': {'tripline.io/job-url': f'{GL}/{ns}/{name}/-/jobs/{job}', 'tripline.io/pipeline-url': f'{GL}/{ns}/{name}/-/pipelines/{pipe}', 'tripline.io/commit-sha': sha}},
                       'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': image}]}}}},
        requestReceivedTimestamp=t + '.318204Z', stageTimestamp=t + '.337911Z'))
audit('hel1', '2026-12-07T09:40:11', 'booking', 'reservation-api', f'{REG}/booking/reservation-api:2.19.1', 8204415, 51790, CM[2210][1], 'runner-hz8kq-project-2210-concurrent-0-2mf7c', '10.47.3.40')
audit('fra2', '2026-12-07T11:47:17', 'pricing', 'fare-engine', f'{REG}/pricing/fare-engine:3.8.0', 8209934, 51873, CM[2214][1], 'runner-p4d2x-project-2214-concurrent-0-9sk1v', '10.31.3.52')

out = __file__.replace('make_tripline.py', 'tripline-fra2-hel1.yaml')
with open(out, 'w') as f:
    f.write('# World "tripline-fra2-hel1" (fresh2 blind batch). GENERATED by make_tripline.py; its docstring tells the story.\n')
    yaml.safe_dump(world, f, sort_keys=False, allow_unicode=True, width=200)
print('written', out)
