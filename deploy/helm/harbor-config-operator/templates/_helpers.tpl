{{/*
The release's objects are named after it: the release name when it contains the chart's name (a
release called harbor-config-operator gets exactly the names of deploy/), else
<release>-harbor-config-operator; fullnameOverride replaces either.
*/}}
{{- define "harbor-config-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The metrics Service: a DNS label, so the suffix fits in 63 characters. */}}
{{- define "harbor-config-operator.metricsService" -}}
{{- printf "%s-metrics" (include "harbor-config-operator.fullname" . | trunc 55 | trimSuffix "-") }}
{{- end }}

{{/* Labels of every object: those of deploy/kustomization.yaml, and Helm's. */}}
{{- define "harbor-config-operator.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/part-of: harbor-config-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* What selects the operator's pods: never changes on upgrade (a Deployment's selector cannot). */}}
{{- define "harbor-config-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/component: operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "harbor-config-operator.image" -}}
{{- $image := .Values.image }}
{{- if $image.digest }}
{{- printf "%s@%s" $image.repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository ($image.tag | default .Chart.AppVersion | toString) }}
{{- end }}
{{- end }}

{{/*
A Kubernetes memory quantity (512Mi, 1Gi, 600M, 536870912) in whole MiB, rounded down.
*/}}
{{- define "harbor-config-operator.mebibytes" -}}
{{- $q := . }}
{{- if kindIs "float64" $q }}
{{- /* A number in a values file: 600000000 would read 6e+08. */}}
{{- $q = printf "%.0f" $q }}
{{- else }}
{{- $q = toString $q }}
{{- end }}
{{- $factors := dict "" 1.0 "k" 1000.0 "Ki" 1024.0 "M" 1000000.0 "Mi" 1048576.0 "G" 1000000000.0 "Gi" 1073741824.0 "T" 1000000000000.0 "Ti" 1099511627776.0 }}
{{- $unit := regexFind "[A-Za-z]*$" $q }}
{{- $number := trimSuffix $unit $q }}
{{- if or (not (hasKey $factors $unit)) (not (regexMatch "^[0-9]+(\\.[0-9]+)?$" $number)) }}
{{- fail (printf "resources.limits.memory %q: cannot derive nodeOptions.maxOldSpaceSize from it; write it like 512Mi or 1Gi, or set nodeOptions.maxOldSpaceSize" $q) }}
{{- end }}
{{- divf (mulf (float64 $number) (get $factors $unit)) 1048576.0 | floor | int }}
{{- end }}

{{/*
NODE_OPTIONS: V8's old generation sized for the memory limit — 3/8 of it (192 MiB of 512Mi), so
that it is collected well before the limit, next to the code and buffers outside the heap — and a
small young generation. nodeOptions.maxOldSpaceSize overrides the derived size; without a memory
limit and without it, V8 sizes the heap itself.
*/}}
{{- define "harbor-config-operator.nodeOptions" -}}
{{- $o := .Values.nodeOptions }}
{{- $parts := list }}
{{- $limit := dig "limits" "memory" "" .Values.resources }}
{{- if $o.maxOldSpaceSize }}
{{- $parts = append $parts (printf "--max-old-space-size=%d" (int $o.maxOldSpaceSize)) }}
{{- else if $limit }}
{{- $mib := include "harbor-config-operator.mebibytes" $limit | int }}
{{- $parts = append $parts (printf "--max-old-space-size=%d" (div (mul $mib 3) 8)) }}
{{- end }}
{{- if $o.maxSemiSpaceSize }}
{{- $parts = append $parts (printf "--max-semi-space-size=%d" (int $o.maxSemiSpaceSize)) }}
{{- end }}
{{- with $o.extra }}
{{- $parts = append $parts . }}
{{- end }}
{{- join " " $parts }}
{{- end }}
