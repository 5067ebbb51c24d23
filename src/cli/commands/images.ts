import { DockerPublisher } from '../../core/sandbox/kubernetes/publish';
import { pushTaskImages } from '../../core/sandbox/kubernetes/images';
import { parseRegistry, Registry, RegistryError } from '../../core/sandbox/kubernetes/registry';
import { boolOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { liveEcho } from '../liveOutput';
import { loadTargets } from '../targets';

export const imagesCommand: CliCommand = {
  name: 'images',
  summary: 'Build task images locally and push them to the registry a Kubernetes cluster pulls from',
  usage: [
    'taskwright images push --registry R PATH... [--json] [--verbose]',
    '',
    '  --registry R   host[:port][/prefix] (TASKWRIGHT_REGISTRY); plain HTTP for localhost, HTTPS otherwise',
    '                 (http://host:port forces HTTP); credentials from `docker login` (~/.docker/config.json)',
    '  --json         print {"version":1,"images":[{"task","image","status","message"}]}',
    '  --verbose      stream build and push output to stderr',
    '',
    'Each task image is built on the local Docker engine under its content-hash tag (unless built already)',
    'and pushed as R/taskwright/<task>:<hash>; a tag the registry already has (HEAD of its manifest) is skipped.',
    '`run` and `validate --backend kubernetes` use the same tags (and push what is missing themselves).',
    'Exit status: 0 when every image is in the registry, 1 when one could not be built or pushed, 2 on usage errors.',
  ].join('\n'),
  options: { registry: { type: 'string' }, json: { type: 'boolean' }, verbose: { type: 'boolean' } },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const [sub, ...paths] = args.positionals;
    if (sub !== 'push') throw new UsageError(sub ? `unknown images command '${sub}' (only: images push)` : 'give a subcommand: images push --registry R PATH...');
    if (!paths.length) throw new UsageError('give at least one task folder or folder of tasks');
    const given = stringOpt(args, 'registry') ?? io.env.TASKWRIGHT_REGISTRY;
    if (!given) throw new UsageError('--registry is required (host[:port][/prefix])');
    let address;
    try {
      address = parseRegistry(given);
    } catch (e) {
      if (e instanceof RegistryError) throw new UsageError(`--registry: ${e.message}`);
      throw e;
    }
    const targets = await loadTargets(paths, io, { requireTasks: true });
    const results = await pushTaskImages(targets.map((t) => t.task), new Registry(address), new DockerPublisher(address, undefined, io.env), {
      ...(boolOpt(args, 'verbose') ? { onLog: liveEcho(io) } : {}), signal: io.signal,
    });
    if (boolOpt(args, 'json')) io.out(JSON.stringify({ version: 1, images: results }, null, 2));
    else {
      for (const r of results) io.out(`${r.status.padEnd(8)} ${r.task}${r.image ? `  ${r.image}` : ''}${r.message ? `  ${r.message}` : ''}`);
      const n = (s: string): number => results.filter((r) => r.status === s).length;
      io.out(`${n('pushed')} pushed, ${n('present')} already in ${address.host}, ${n('failed')} failed`);
    }
    if (io.signal.aborted) return 130;
    return results.length === targets.length && results.every((r) => r.status !== 'failed') ? 0 : 1;
  },
};
