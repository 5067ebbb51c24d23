import { calleeName, stringValue, text } from '../../parse/python';
import { descendants, findAncestor, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { isRemoteUrl, urlHost } from './commands';
import { testFunctionsOf } from './pythonTests';
import { verifierOffline } from './verifierScript';

/** A remote URL written in test code, and how the test uses it. */
interface TestUrl {
  readonly file: string;
  readonly node: SyntaxNode;
  readonly url: string;
  readonly host: string;
  /** The call it is an argument of (`requests.post`, `urlretrieve`, `subprocess.run([... "curl" ...])`). */
  readonly call?: string;
  /** Sent to a grader: POSTed, or a host given as a bare IP address. */
  readonly grading: boolean;
}

const RAW_IP = /^\d{1,3}(\.\d{1,3}){3}$/;
/** Loopback, private and link-local addresses: a test's SSRF inputs or a sibling service, never a third party. */
const LOCAL_IP = /^(127\.|10\.|192\.168\.|169\.254\.|0\.0\.0\.0$|172\.(1[6-9]|2\d|3[01])\.)/;
/** A public raw IP the tests reach: a remote grader unless it only sits in a list of test inputs. */
const remoteIp = (host: string): boolean => RAW_IP.test(host) && !LOCAL_IP.test(host);
const HTTP_CALL = /^(requests|httpx|session|client|s)\.(get|post|put|request|head)$|^(urllib\.request\.)?(urlopen|urlretrieve|Request)$|^(wget\.download)$/;
const SENDS = /\.(post|put)$|Request$/;

/** The shell-out that fetches: `subprocess.run(["curl", URL])`, `os.system("wget URL")`. */
function shellFetch(tree: SyntaxTree, lit: SyntaxNode): string | undefined {
  const call = findAncestor(lit, (n) => n.type === 'call');
  if (!call) return undefined;
  const name = calleeName(tree, call);
  if (!/^(subprocess\.\w+|os\.system|os\.popen|run|check_output|check_call)$/.test(name)) return undefined;
  return /\b(curl|wget)\b/.test(text(tree, call)) ? name : undefined;
}

const cache = new WeakMap<AuditContext, TestUrl[]>();

/** Remote URLs in the tests' Python: direct call arguments, shell-outs, and raw-IP endpoints anywhere. */
function testUrls(ctx: AuditContext): TestUrl[] {
  let out = cache.get(ctx);
  if (out) return out;
  out = [];
  for (const tf of testFunctionsOf(ctx)) {
    const seen = new Set<string>();
    // Every string of the file, in document order (from the tree's type index: no walk of every node).
    for (const n of descendants(tf.tree.root, 'string')) {
      if (n.parent?.type !== 'concatenated_string') {
        // f-strings: the literal head (`f"{BASE}/submit"` has none, `f"http://1.2.3.4/{x}"` does).
        const v = stringValue(tf.tree, n) ?? text(tf.tree, n).replace(/^[a-z]*["']{1,3}|["']{1,3}$/gi, '');
        const m = /^[a-z][a-z0-9+.-]*:\/\/[^\s"'{}]+/i.exec(v);
        const url = m?.[0];
        if (url && isRemoteUrl(url) && !seen.has(`${n.start}`)) {
          seen.add(`${n.start}`);
          const host = urlHost(url) ?? '';
          const callNode = n.parent?.type === 'argument_list' ? n.parent.parent : undefined;
          const direct = callNode ? calleeName(tf.tree, callNode) : undefined;
          const call = direct && HTTP_CALL.test(direct) ? direct : shellFetch(tf.tree, n);
          // A URL that is an item of a list, tuple or set literal is test data (`blocked = ["http://10.0.0.1/"]`), not a call.
          const data = call === undefined && /^(list|tuple|set)$/.test(n.parent?.type ?? '');
          const grading = (remoteIp(host) && !data) || (call !== undefined && SENDS.test(call));
          if (call !== undefined || (remoteIp(host) && !data)) out.push({ file: tf.file, node: n, url, host, grading, ...(call ? { call } : {}) });
        }
      }
    }
  }
  cache.set(ctx, out);
  return out;
}

export const externalGradingService: StaticRule = {
  id: 'external-grading-service', class: 'brittleness', severity: 'warning',
  title: 'The verdict comes from a remote service (a raw IP or a third-party host)',
  *check(ctx) {
    const byFile = new Map<string, TestUrl[]>();
    for (const u of testUrls(ctx).filter((x) => x.grading)) byFile.set(u.file, [...(byFile.get(u.file) ?? []), u]);
    for (const [file, urls] of byFile) {
      const first = urls[0] as TestUrl;
      const ip = remoteIp(first.host);
      yield {
        file, range: ctx.range(file, first.node.start, first.node.end),
        message: `The tests send the agent's work to ${first.url}${ip ? ' (a bare IP address, with no name that can be moved)' : ''} and grade by its answer: when that host is down, slow or changes, every trial scores 0 or a different reward, and the task cannot be run offline. Grade inside the container.`,
        ...(urls.length > 1 ? { related: urls.slice(1).map((u) => ({ file, range: ctx.range(file, u.node.start, u.node.end), message: `also contacts ${u.url}` })) } : {}),
      };
    }
  },
};

export const testCodeNetworkFetch: StaticRule = {
  id: 'test-code-network-fetch', class: 'brittleness', severity: 'info',
  title: 'The tests download from the internet while grading',
  *check(ctx) {
    const severity = verifierOffline(ctx) ? 'warning' : 'info';
    const byFile = new Map<string, TestUrl[]>();
    for (const u of testUrls(ctx).filter((x) => !x.grading && x.call)) byFile.set(u.file, [...(byFile.get(u.file) ?? []), u]);
    for (const [file, urls] of byFile) {
      const first = urls[0] as TestUrl;
      const moving = urls.find((u) => /\/raw\/(master|main)\/|refs\/heads\/|\/(master|main)\/|\/latest\//.test(u.url));
      yield {
        file, range: ctx.range(file, first.node.start, first.node.end),
        severity: moving ? 'warning' : severity,
        message: moving
          ? `The tests fetch ${moving.url} at grading time, a moving branch or "latest": what the agent is graded against changes over time. Ship a pinned copy under tests/.`
          : severity === 'warning'
            ? `The tests fetch ${first.url} at grading time, but the task cuts the network: the fetch fails and a correct solution scores 0.`
            : `The tests fetch ${first.url} at grading time: the reward then depends on ${first.host} being reachable. Ship the file under tests/.`,
      };
    }
  },
};
