/**
 * `[environment] docker_image` names a stock image while environment/Dockerfile sets the task up.
 * Harbor's docker environment runs a configured `docker_image` as it is and builds the Dockerfile only
 * under `--force-build` (harbor/environments/definition.py, should_use_prebuilt_docker_image): the
 * repository the Dockerfile clones, the files it copies, the packages it installs never reach the
 * agent, and the reference solution fails with them. A task's own prebuilt image (built from this
 * Dockerfile and pushed) is the intended use, and is left alone; a bare local tag (`rl-exploits-lbp:latest`,
 * no registry, no namespace, no official image of that name) is not pushed anywhere: Docker looks it up
 * as an official image, finds none, and the environment never starts on a machine where nobody built
 * that tag by hand.
 */
import type { StaticRule } from '../rule';
import { dfFile } from './dockerfile';
import { MOVING_IMAGES } from './imageBuild';
import { localTag } from './verifierImage';

export const dockerImageShadowsDockerfile: StaticRule = {
  id: 'docker-image-shadows-dockerfile', class: 'invalidity', severity: 'warning',
  title: 'A stock or local-only `docker_image` is run instead of the task\'s Dockerfile',
  *check(ctx) {
    const image = ctx.task.environment.dockerImage;
    const df = ctx.dockerfile();
    if (ctx.task.format !== 'harbor' || image === undefined || !df || ctx.task.environment.dockerfile === undefined) return;
    const name = image.replace(/@.*$/, '').replace(/:[\w.-]+$/, '');
    const local = localTag(image) !== undefined;
    if (!local && !MOVING_IMAGES.test(name)) return;
    // What the Dockerfile adds on top of its base: the set-up the stock image lacks.
    const setUp = df.instructions.filter((i) => /^(RUN|COPY|ADD)$/.test(i.keyword));
    if (setUp.length === 0 && !local) return;
    const file = ctx.task.configFile;
    const text = ctx.text(file) ?? '';
    const m = /^\s*docker_image\s*=.*$/m.exec(text);
    yield {
      file, ...(m ? { range: ctx.range(file, m.index + (m[0].length - m[0].trimStart().length), m.index + m[0].length) } : {}),
      // A bare local tag is often built by the repository's own runner before every run (judged
      // 0 of 4 defects on real tasks): a note that the task is not self-contained, not a warning.
      ...(local ? { severity: 'info' as const } : {}),
      message: local
        ? `\`docker_image = "${image}"\` is a bare local tag that no registry holds, and Harbor runs a configured docker_image instead of building ${dfFile(ctx)}: Docker looks the name up as an official image, finds none, and the environment never starts on a machine where nobody built that tag by hand (a repository script that builds it first is outside what Harbor runs). Remove docker_image so Harbor builds the Dockerfile, or push the image and name it with its registry path.`
        : `\`docker_image = "${image}"\` is a stock image, and Harbor runs a configured docker_image as it is: ${dfFile(ctx)} (${setUp.length} RUN/COPY/ADD line${setUp.length > 1 ? 's' : ''}) is built only under --force-build, so what it sets up never reaches the agent or the reference solution. Remove docker_image, or point it at an image built from this Dockerfile.`,
    };
  },
};
