/** How the image is built: base image tags, package versions, apt's lists, `nproc` under a CPU limit. */
import type { ParsedDockerfile } from '../../parse/dockerfile';
import type { Report, StaticRule } from '../rule';
import { installOf } from './commands';
import { composeBuiltDockerfiles } from './composeBuilds';
import { dfFile, runCmdRange, runCommands } from './dockerfile';

/**
 * Public images whose \`latest\` moves on every release (Docker Official Images and the common vendor
 * ones). A task-specific or local image (\`swebench/sweb.eval.…-1234\`, \`myteam-base\`) is often
 * published under \`latest\` only: there is no other tag to pin, so it is reported at info.
 */
export const MOVING_IMAGES = /^(docker\.io\/)?(library\/)?(ubuntu|debian|alpine|python|node|golang|rust|ruby|openjdk|eclipse-temurin|amazoncorretto|gcc|centos|fedora|archlinux|busybox|nginx|httpd|postgres|mysql|mariadb|redis|mongo|php|perl|r-base|julia|haskell|erlang|elixir|swift|maven|gradle|buildpack-deps|rockylinux|almalinux|amazonlinux|oraclelinux|opensuse\/leap|opensuse\/tumbleweed|kalilinux\/kali-rolling|nvidia\/cuda|continuumio\/(miniconda3|anaconda3)|condaforge\/(miniforge3|mambaforge)|jupyter\/[\w-]+|pytorch\/pytorch|tensorflow\/tensorflow|mcr\.microsoft\.com\/[\w/.-]+|ghcr\.io\/astral-sh\/uv|rocker\/[\w-]+|selenium\/[\w-]+|node-red\/node-red)$/i;

export const baseImageUnpinned: StaticRule = {
  id: 'base-image-unpinned', class: 'brittleness', severity: 'warning',
  title: 'The base image is `:latest` or untagged',
  *check(ctx) {
    const main = ctx.dockerfile();
    if (main) yield* unpinnedImages(dfFile(ctx), main);
    // The other images the task builds: its compose file's services.
    for (const file of composeBuiltDockerfiles(ctx)) {
      const parsed = ctx.parsedDockerfile(file);
      if (parsed) yield* unpinnedImages(file, parsed);
    }
  },
};

/** `FROM` and `COPY --from=` images of one Dockerfile that follow `latest` (stages and variables left out). */
function* unpinnedImages(file: string, df: ParsedDockerfile): Generator<Report> {
  const stages = new Set(df.froms.map((f) => f.stage?.toLowerCase()).filter((s): s is string => !!s));
  // `COPY --from=ghcr.io/astral-sh/uv:latest /uv /bin/`: files taken from another image, pinned or not.
  for (const c of df.copies) {
    const img = c.from;
    if (!img || img.includes('$') || /^\d+$/.test(img) || stages.has(img.toLowerCase()) || img.includes('@')) continue;
    const m = /^(.*?)(?::([\w][\w.-]*))?$/.exec(img);
    const name = m?.[1] ?? img;
    const tag = m?.[2];
    if (tag && tag !== 'latest') continue;
    if (!MOVING_IMAGES.test(name)) continue;
    yield {
      file, range: c.instruction.range,
      message: `\`COPY --from=${img}\` takes files from ${tag ? 'the `latest` tag' : 'an implicit `latest`'} of ${name}: what the image contains changes with every release. Pin a version tag (and ideally a digest).`,
    };
  }
  for (const from of df.froms) {
    const img = from.image;
    if (!img || img.includes('$') || img === 'scratch' || stages.has(img.toLowerCase()) || from.digest) continue;
    if (from.tag && from.tag !== 'latest') continue;
    const name = from.name ?? img.replace(/:latest$/, '');
    const moving = MOVING_IMAGES.test(name);
    yield {
      file, range: from.imageRange ?? from.instruction.range,
      ...(moving ? {} : { severity: 'info' as const }),
      message: moving
        ? `\`FROM ${img}\` follows ${from.tag ? 'the `latest` tag' : 'an implicit `latest`'}: the environment changes under the task with every release. Pin a version tag (and ideally a digest).`
        : `\`FROM ${img}\` follows ${from.tag ? 'the `latest` tag' : 'an implicit `latest`'}: if this image is ever republished, the environment changes under the task. Pin a digest when there is no version tag.`,
    };
  }
}

export const unpinnedImagePackage: StaticRule = {
  id: 'unpinned-image-package', class: 'brittleness', severity: 'info',
  title: 'The Dockerfile pip-installs a package without a version',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const file = dfFile(ctx);
    for (const { run, cmd } of runCommands(df)) {
      const inst = installOf(cmd);
      if (!inst || (inst.manager !== 'pip' && inst.manager !== 'npm')) continue;
      for (const p of inst.packages.filter((x) => !x.pinned)) {
        const w = cmd.args[p.argIndex];
        if (!w) continue;
        yield { file, range: df.lines.rangeOf(run.instruction.argsOffset + w.start, run.instruction.argsOffset + w.end), message: `\`${p.spec}\` is installed without a version: a rebuild can bring a different release than the one the oracle was checked with.` };
      }
    }
  },
};

export const aptInstallWithoutUpdate: StaticRule = {
  id: 'apt-install-without-update', class: 'invalidity', severity: 'warning',
  title: '`apt-get install` runs before any `apt-get update`',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const file = dfFile(ctx);
    let updated = false;
    for (const { run, cmd } of runCommands(df)) {
      const w = [cmd.name, ...cmd.args.map((a) => a.value)];
      if ((cmd.name === 'apt-get' || cmd.name === 'apt') && w.includes('update')) { updated = true; continue; }
      if (updated) continue;
      const inst = installOf(cmd);
      if (inst?.manager !== 'apt' || inst.packages.length === 0) continue;
      yield { file, range: runCmdRange(df, run, cmd), message: 'Base images ship without package lists: `apt-get install` before `apt-get update` fails with "Unable to locate package". Run `apt-get update && apt-get install …` in the same RUN.' };
      return;
    }
  },
};

export const nprocWithCpuLimit: StaticRule = {
  id: 'nproc-with-cpu-limit', class: 'infra', severity: 'info',
  title: '`nproc` reports the host\'s CPUs, not the task\'s CPU limit',
  *check(ctx) {
    const cpus = ctx.task.environment.cpus;
    if (cpus === undefined) return;
    const files = [ctx.solutionScript, ...ctx.verifierScripts].filter((f): f is string => !!f);
    for (const file of files) {
      const t = ctx.text(file) ?? '';
      const re = /\bnproc\b|os\.cpu_count\(\)|multiprocessing\.cpu_count\(\)/g;
      const m = re.exec(t);
      if (!m) continue;
      yield { file, range: ctx.range(file, m.index, m.index + m[0].length), message: `The task limits the container to ${cpus} CPU(s), but \`${m[0]}\` reports every host CPU: \`make -j$(nproc)\` oversubscribes and runs slower or out of memory. Use a fixed job count or read the cgroup quota.` };
    }
  },
};
