// What a replication run copies, as Harbor 2.12 works it out: the source's repositories and their
// artifacts, narrowed by the policy's filters (pkg/reg/filter), one resource per repository that
// keeps at least one artifact, and the destination name each resource gets (flow/stage.go).
//
// - name: a doublestar pattern (bmatcuk/doublestar) matched against the full repository name
//   ("library/nginx"); `*` stays within one path segment, `**` spans segments;
// - tag: the same pattern against each tag; `matches` keeps the matching tags of an artifact,
//   `excludes` the others; an untagged artifact is matched as the empty string;
// - label: an artifact matches when it carries every label named; `excludes` keeps the others;
// - resource: stored and shown, but Harbor 2.12's flow no longer reads it, so it narrows nothing.

/** One artifact of a source repository. */
export interface SourceArtifact {
  digest: string;
  tags: string[];
  /** Label names. */
  labels: string[];
}

export interface SourceRepository {
  /** Full name: "<project or namespace>/<path>". */
  name: string;
  artifacts: SourceArtifact[];
}

export interface FilterSpec {
  type: string;
  value: unknown;
  decoration: string;
}

/** A malformed pattern: Harbor's flow fails with this text. */
export class PatternError extends Error {
  constructor() {
    super("syntax error in pattern");
  }
}

/** The repositories and artifacts a run copies; repositories left without artifacts are dropped. */
export function selectResources(repositories: SourceRepository[], filters: FilterSpec[]): SourceRepository[] {
  const out: SourceRepository[] = [];
  for (const repo of repositories) {
    if (!filters.every((f) => f.type !== "name" || matchPattern(String(f.value), repo.name))) continue;
    let artifacts = repo.artifacts;
    for (const f of filters) {
      if (f.type === "tag") artifacts = filterTags(artifacts, String(f.value), f.decoration);
      else if (f.type === "label") artifacts = filterLabels(artifacts, f.value as string[], f.decoration);
    }
    if (artifacts.length > 0) out.push({ name: repo.name, artifacts });
  }
  return out;
}

function filterTags(artifacts: SourceArtifact[], pattern: string, decoration: string): SourceArtifact[] {
  if (pattern === "") return artifacts;
  const keep = (s: string) => matchPattern(pattern, s) !== (decoration === "excludes");
  const out: SourceArtifact[] = [];
  for (const a of artifacts) {
    if (a.tags.length === 0) {
      if (keep("")) out.push(a);
      continue;
    }
    // Only the kept tags are replicated.
    const tags = a.tags.filter(keep);
    if (tags.length > 0) out.push({ ...a, tags });
  }
  return out;
}

function filterLabels(artifacts: SourceArtifact[], labels: string[], decoration: string): SourceArtifact[] {
  if (labels.length === 0) return artifacts;
  return artifacts.filter((a) => labels.every((l) => a.labels.includes(l)) !== (decoration === "excludes"));
}

/** Harbor's name for a resource in task lists: "<repository> [<n> item(s) in total]". */
export function resourceName(repository: string, artifacts: SourceArtifact[]): string {
  const items = artifacts.reduce((n, a) => n + Math.max(1, a.tags.length), 0);
  return `${repository} [${items} item(s) in total]`;
}

/**
 * The destination repository: the source name under `namespace`, with `replaceCount` leading
 * path segments replaced (-1: only the last segment is kept, Harbor's legacy mode). Throws with
 * Harbor's message when the source has fewer segments than that.
 */
export function destinationName(repository: string, namespace: string, replaceCount: number): string {
  if (namespace === "") return repository;
  const parts = repository.split("/");
  const last = parts[parts.length - 1] as string;
  if (replaceCount < 0) return `${namespace}/${last}`;
  if (replaceCount > parts.length - 1) {
    const prefix = parts.slice(0, -1);
    throw new Error(
      `the source repository "${repository}" contains only ${prefix.length} path components [${prefix.join(" ")}] excepting the last one, but the destination namespace flattening level is ${replaceCount}`,
    );
  }
  return [namespace, ...parts.slice(replaceCount, -1), last].join("/");
}

// ---------------------------------------------------------------------------------------------
// doublestar matching

const cache = new Map<string, RegExp>();

/** bmatcuk/doublestar's Match: the whole name must match; throws PatternError when malformed. */
export function matchPattern(pattern: string, name: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(`^${translate(pattern, 0, false)[0]}$`, "s");
    cache.set(pattern, re);
  }
  return re.test(name);
}

/**
 * The regular expression of pattern[from…]; inside braces it stops at the closing `}` or a `,`.
 * Returns the source and where it stopped.
 */
function translate(pattern: string, from: number, inBraces: boolean): [string, number] {
  let out = "";
  let i = from;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (inBraces && (c === "}" || c === ",")) return [out, i];
    if (c === "\\") {
      if (i + 1 >= pattern.length) throw new PatternError();
      out += literal(pattern[i + 1] as string);
      i += 2;
    } else if (c === "*") {
      const double = pattern[i + 1] === "*";
      const atStart = i === 0 || pattern[i - 1] === "/";
      const atEnd = i + 2 === pattern.length || pattern[i + 2] === "/";
      if (double && atStart && atEnd) {
        // "**" as a whole segment spans any number of segments, including none.
        if (pattern[i + 2] === "/") out += "(?:.*/)?";
        else if (i === 0) out += ".*";
        else out = `${out.slice(0, -1)}(?:/.*)?`;
        i += pattern[i + 2] === "/" ? 3 : 2;
        continue;
      }
      out += "[^/]*";
      i += double ? 2 : 1;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 1);
      if (close < 0) throw new PatternError();
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      if (body === "") throw new PatternError();
      // A class never matches the separator.
      out += `[${negated ? "^/" : ""}${body.replace(/\\/g, "\\\\")}]`;
      i = close + 1;
    } else if (c === "{") {
      const alternatives: string[] = [];
      let j = i + 1;
      for (;;) {
        const [alt, stop] = translate(pattern, j, true);
        alternatives.push(alt);
        if (stop >= pattern.length) throw new PatternError();
        j = stop + 1;
        if (pattern[stop] === "}") break;
      }
      out += `(?:${alternatives.join("|")})`;
      i = j;
    } else {
      out += literal(c);
      i++;
    }
  }
  return [out, i];
}

function literal(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
