/**
 * concurrent-trials-collide, in the style of the compose files read in the blind sets: sidecars with a
 * literal container_name or a published host port (a payment gateway on 5000, an app on 8081), next to
 * the forms that take nothing fixed from the host (the container port alone, a variable, a range, the
 * harness's container name).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf } from './audit-helpers';

const RULE = ['concurrent-trials-collide'];
const MAIN = 'services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}\n    image: ${MAIN_IMAGE_NAME}\n    command: ["sh", "-c", "sleep infinity"]\n';
const harbor = (sidecars: string): Record<string, string> => ({ 'environment/docker-compose.yaml': MAIN + sidecars });

void describe('concurrent-trials-collide: fixed names taken from the Docker host', () => {
  void it('one finding per compose file, at the first fixed binding; the others are related locations', async () => {
    const sidecars = '  gateway:\n    image: python:3.12-slim-bookworm\n    container_name: gateway\n    ports:\n      - "5000:5000"\n  ledger:\n    image: python:3.12-slim-bookworm\n    ports:\n      - target: 5002\n        published: 5002\n';
    assert.deepEqual(await findingsOf('clean-harbor', harbor(sidecars), RULE), ['concurrent-trials-collide warning 9']);
  });
  void it('an address-bound host port and a protocol suffix are fixed host ports', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', harbor('  db:\n    image: postgres:16.4\n    ports:\n      - "127.0.0.1:5432:5432/tcp"\n'), RULE), ['concurrent-trials-collide warning 10']);
  });
  void it('a container port alone, a host-port variable, a range, expose and a harness-named container take nothing fixed', async () => {
    const free = '  api:\n    image: python:3.12-slim-bookworm\n    container_name: ${PROJECT_NAME}-api\n    ports:\n      - "8080"\n      - 9000\n      - "${API_PORT}:8080"\n      - "8100-8110:80"\n    expose:\n      - "7000"\n';
    assert.deepEqual(await findingsOf('clean-harbor', harbor(free), RULE), []);
  });
  void it('Terminal-Bench 1: a sidecar\'s literal name is reported; a file with no service named by the harness is tb1-compose-without-harness-name\'s', async () => {
    const client = 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\n    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\n';
    const db = '  db:\n    image: postgres:16.4\n    container_name: orders_db\n';
    assert.deepEqual(await findingsOf('clean-tb1', { 'docker-compose.yaml': client + db }, RULE), ['concurrent-trials-collide warning 9']);
    const own = 'services:\n  sandbox:\n    build: .\n    container_name: orders_task\n    ports:\n      - "8888:8888"\n';
    assert.deepEqual(await findingsOf('clean-tb1', { 'docker-compose.yaml': own }, [...RULE, 'tb1-compose-without-harness-name']), ['concurrent-trials-collide warning 6', 'tb1-compose-without-harness-name warning 2']);
  });
  void it('a compose file Harbor does not read (the agent\'s material) is not judged', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/app/docker-compose.yml': 'services:\n  web:\n    image: nginx:1.27\n    ports:\n      - "8080:80"\n' }, RULE), []);
  });
});
