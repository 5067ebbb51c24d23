/**
 * An image of the task (the environment's Dockerfile; Harbor's `tests/Dockerfile` for a separate
 * verifier, a compose service) built FROM a bare local tag that nothing in the task builds: on a fresh
 * machine `docker build` looks the name up on Docker Hub as an official image, finds none, and the
 * image never builds.
 */
import { parseDockerfile } from '../../parse/dockerfile';
import { parseYamlShared } from '../../parse/yamlShared';
import type { StaticRule } from '../rule';

/** Docker Official Images (docker.io/library/*): a bare name among these is pulled, not local. */
const OFFICIAL = new Set(('adminer aerospike almalinux alpine alt amazoncorretto amazonlinux api-firewall arangodb archlinux '
  + 'backdrop bash bonita buildpack-deps busybox caddy cassandra chronograf cirros clearlinux clefos clickhouse clojure composer '
  + 'convertigo couchbase couchdb crate dart debian docker drupal eclipse-mosquitto eclipse-temurin eggdrop elasticsearch '
  + 'elixir emqx erlang fedora flink fluentd friendica gazebo gcc geonetwork ghost golang gradle groovy haproxy haskell haxe '
  + 'hello-world hitch httpd hylang ibm-semeru-runtimes ibmjava influxdb irssi jetty joomla jruby julia kapacitor kibana kong '
  + 'krakend liquibase logstash mageia mariadb matomo maven mediawiki memcached mongo mongo-express monica mono mosquitto mysql '
  + 'nats neo4j neurodebian nextcloud nginx node notary odoo open-liberty openjdk oraclelinux orientdb percona perl photon php '
  + 'php-zendserver phpmyadmin plone postfixadmin postgres pypy python r-base rabbitmq rakudo-star redis redmine registry '
  + 'rethinkdb rocket.chat rockylinux ros ruby rust sapmachine satosa scratch silverpeas solr sonarqube spark spiped storm '
  + 'swift swipl teamspeak telegraf tomcat tomee traefik ubuntu unit varnish vault websphere-liberty wordpress xwiki yourls '
  + 'znc zookeeper centos nats-streaming').split(' '));

/** A bare, unqualified image name (no registry, no namespace) that Docker Hub's library does not have. */
export function localTag(image: string): string | undefined {
  if (!image || image.includes('$') || image.includes('/')) return undefined;
  const name = image.replace(/@.*$/, '').replace(/:[^:]*$/, '').toLowerCase();
  return OFFICIAL.has(name) ? undefined : name;
}

interface ComposeService { readonly image?: string; readonly build?: unknown }

/** Images the task builds itself: compose services with both `build:` and `image:` tag their build. */
function builtByCompose(text: string | undefined): { built: Set<string>; services: [string, ComposeService][] } {
  const built = new Set<string>();
  const services: [string, ComposeService][] = [];
  if (text === undefined) return { built, services };
  try {
    const doc = parseYamlShared(text) as { services?: Record<string, ComposeService> } | undefined;
    for (const [name, s] of Object.entries(doc?.services ?? {})) {
      if (!s || typeof s !== 'object') continue;
      services.push([name, s]);
      if (s.build !== undefined && typeof s.image === 'string') built.add(s.image.replace(/:[^:]*$/, '').toLowerCase());
    }
  } catch {
    // A compose file that does not parse is the loader's business.
  }
  return { built, services };
}

export const verifierImageLocalBase: StaticRule = {
  id: 'verifier-image-local-base', class: 'invalidity', severity: 'warning',
  title: 'A verifier image is built FROM a local tag that nothing in the task builds',
  *check(ctx) {
    const tests = ctx.testsDir;
    const compose = ctx.task.environment.composeFile;
    const composeText = ctx.text(compose);
    const { built, services } = builtByCompose(composeText);
    // A base the environment image also starts from is the dataset's shared base: environment-image-local-base
    // reports it once, at the environment's FROM.
    const envBases = new Set((ctx.dockerfile()?.froms ?? []).map((f) => f.image.replace(/@.*$/, '').replace(/:[^:]*$/, '').toLowerCase()));
    // The task's own environment image (`docker_image`): the verifier built on it stands or falls with the environment.
    const envImage = localTag(ctx.task.environment.dockerImage ?? '');
    const known = (name: string): boolean => built.has(name) || envBases.has(name) || name === envImage;
    for (const file of ctx.task.files) {
      if (!file.startsWith(`${tests}/`) || !/(^|\/)(Dockerfile[\w.-]*|[\w.-]+\.Dockerfile)$/.test(file)) continue;
      const text = ctx.text(file);
      if (text === undefined) continue;
      const df = parseDockerfile(text);
      const stages = new Set(df.froms.map((f) => f.stage?.toLowerCase()).filter((s): s is string => !!s));
      for (const from of df.froms) {
        const name = localTag(from.image);
        if (!name || stages.has(name) || known(name)) continue;
        yield {
          file, range: from.imageRange ?? from.instruction.range,
          message: `The verifier image starts FROM \`${from.image}\`, a bare local tag that nothing in the task builds (the harness gives the environment image its own name): on a fresh machine Docker looks for an official image of that name, finds none, and the verifier never runs. Start from a published image, or build the base in this Dockerfile.`,
        };
      }
    }
    if (!compose || composeText === undefined) return;
    for (const [name, s] of services) {
      if (s.build !== undefined || typeof s.image !== 'string') continue;
      const tag = localTag(s.image);
      if (!tag || known(tag)) continue;
      const at = composeText.indexOf(s.image);
      yield {
        file: compose, ...(at >= 0 ? { range: ctx.range(compose, at, at + s.image.length) } : {}),
        message: `The service \`${name}\` runs \`${s.image}\`, a bare local tag that no service of the compose file builds: on a fresh machine compose pulls it from Docker Hub's library, finds none, and the task does not start. Add a \`build:\` for it, or name a published image.`,
      };
    }
  },
};

/**
 * The environment's own Dockerfile starting FROM a bare local tag: a base a dataset's generation
 * pipeline or setup script builds on its author's machine (`tb-seed-tabulate:bf58e3`,
 * `rl-exploits-foundry-core:latest`). Nothing in the task builds it, no registry holds it, so on any
 * other machine the environment never builds and every trial, the reference solution's included, is
 * an infrastructure error. A stage of the same file, a tag a compose service of the task builds, and
 * template placeholders (`{base_image}`) are left alone. A note, not a warning: judged on real tasks
 * (4 of 12), most such bases are built by the repository's own documented script or runner, by design.
 */
export const environmentImageLocalBase: StaticRule = {
  id: 'environment-image-local-base', class: 'invalidity', severity: 'info',
  title: 'The environment image is built FROM a local tag that nothing in the task builds',
  *check(ctx) {
    const file = ctx.task.environment.dockerfile;
    const df = ctx.dockerfile();
    if (file === undefined || !df) return;
    const { built } = builtByCompose(ctx.text(ctx.task.environment.composeFile));
    const stages = new Set(df.froms.map((f) => f.stage?.toLowerCase()).filter((s): s is string => !!s));
    for (const from of df.froms) {
      const name = localTag(from.image);
      if (!name || /[{}<>]/.test(from.image) || stages.has(name) || built.has(name)) continue;
      yield {
        file, range: from.imageRange ?? from.instruction.range,
        message: `The environment image starts FROM \`${from.image}\`, a bare local tag that nothing in the task builds and no registry holds: on a machine where nobody built that tag by hand, Docker looks for an official image of that name, finds none, and the environment never builds, so every trial (the reference solution's too) fails before it starts. Start from a published image, build the base in this Dockerfile (a first stage), or push it and name it with its registry path.`,
      };
    }
  },
};
