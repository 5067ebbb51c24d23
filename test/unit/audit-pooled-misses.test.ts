/**
 * Defects the twelve blind readings labelled and no rule saw (bench/accuracy/labels/*.json, read
 * together after the twelfth set): a project suite run in the agent's checkout (`go test ./...`,
 * `cargo test`, `dotnet test`, `npx jest`), and `set -e` ending a verifier whose test run sits in an
 * if branch or follows a reward written only on an early-exit branch. One fixture per cause, in the
 * style of what was read; each false case stays quiet.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';

const SH = (body: string): string => `#!/bin/bash\n${body}\n`;
const REWARD = 'if [ $rc -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi';
/** An image that puts a Go project (tests included) where the agent works. */
const GO_IMAGE = 'FROM golang:1.22-bookworm\nWORKDIR /app\nCOPY app/ /app/\n';
const RULE = ['verifier-runs-agent-writable-code'];

const CASES: readonly Case[] = [
  { name: '`go test ./...` in the agent\'s checkout runs test files the agent can edit', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': GO_IMAGE, 'environment/app/go.mod': 'module app\n', 'tests/test.sh': SH(`cd /app\ngo test -race ./...\nrc=$?\n${REWARD}`) },
    want: ['verifier-runs-agent-writable-code warning 3'] },
  { name: '… the same run after the verifier copies its own test files in from /tests is the verifier\'s suite', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': GO_IMAGE, 'environment/app/go.mod': 'module app\n', 'tests/test.sh': SH(`cd /app\nfind /tests -name '*_test.go' | xargs -I {} cp {} .\ngo test ./...\nrc=$?\n${REWARD}`) },
    want: [] },
  { name: '… or after it restores the test files with git', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': GO_IMAGE, 'environment/app/go.mod': 'module app\n', 'tests/test.sh': SH(`cd /app\ngit checkout HEAD -- store/store_test.go\ngo test ./store/...\nrc=$?\n${REWARD}`) },
    want: [] },
  { name: '`cargo test --no-run` only compiles the tests: nothing is run, nothing reported', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': 'FROM rust:1.79-bookworm\nWORKDIR /app\nCOPY app/ /app/\n', 'environment/app/Cargo.toml': '[package]\nname = "app"\n', 'tests/test.sh': SH(`cd /app\ncargo test --no-run\ncargo test --manifest-path /tests/verify/Cargo.toml\nrc=$?\n${REWARD}`) },
    want: [] },
  { name: '`npx jest` with no path, started where the agent works, runs the workspace\'s tests and jest config', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': 'FROM node:20-bookworm-slim\nWORKDIR /app\nCOPY app/ /app/\n', 'environment/app/package.json': '{"name":"app"}\n', 'tests/test.sh': SH(`npx jest --ci\nrc=$?\n${REWARD}`) },
    want: ['verifier-runs-agent-writable-code warning 2'] },
  { name: '… `npx jest /tests/app.test.js` runs the verifier\'s own test file', base: 'clean-harbor', rules: RULE,
    files: { 'environment/Dockerfile': 'FROM node:20-bookworm-slim\nWORKDIR /app\nCOPY app/ /app/\n', 'environment/app/package.json': '{"name":"app"}\n', 'tests/test.sh': SH(`npx jest --ci /tests/app.test.js\nrc=$?\n${REWARD}`) },
    want: [] },
  // reward-not-written-on-failure
  { name: 'under `set -e` a test run inside an if branch still ends the script when it fails', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': SH('set -e\nmkdir -p /logs/verifier\nif command -v uvx >/dev/null 2>&1; then\n  uvx --with pytest==8.4.1 pytest /tests/test_outputs.py -rA\n  rc=$?\nelse\n  pytest /tests/test_outputs.py -rA\n  rc=$?\nfi\n' + REWARD) },
    want: ['reward-not-written-on-failure warning 5', 'reward-not-written-on-failure warning 8'] },
  { name: 'a reward 0 written only on an early-exit branch does not cover the check that follows', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': SH('set -e\nmkdir -p /logs/verifier\nif [ ! -f /app/report.json ]; then\n  echo 0 > /logs/verifier/reward.txt\n  exit 0\nfi\npython3 - <<\'EOF\'\nimport json, sys\nsys.exit(0 if json.load(open("/app/report.json"))["ok"] else 1)\nEOF\necho 1 > /logs/verifier/reward.txt') },
    want: ['reward-not-written-on-failure warning 8'] },
  { name: '… a fallback 0 written on every path before the test run is what a failure leaves', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': SH('set -e\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\npytest /tests/test_outputs.py -rA\necho 1 > /logs/verifier/reward.txt') },
    want: [] },
  // solution-path-missing: a script run by a relative path that nothing provides
  { name: 'solve.sh runs `python3 solution.py` in the image\'s working folder, where nothing puts it (the reference is solution.java)', base: 'clean-harbor', rules: ['solution-path-missing'],
    files: { 'environment/Dockerfile': 'FROM eclipse-temurin:17-jdk\nWORKDIR /task\nCOPY data/ /task/data/\n', 'solution/solution.java': 'class Solution {}\n',
      'solution/solve.sh': SH('set -e\n# solution.py is assembled by the adapter\npython3 solution.py') },
    want: ['solution-path-missing warning 4'] },
  { name: '… quiet when the script cds into its own folder first, writes the file, or the image ships it; and on `python3 -m`', base: 'clean-harbor', rules: ['solution-path-missing'],
    files: { 'solution/solution.py': 'print(1)\n', 'environment/tool.py': 'print(1)\n',
      'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY tool.py /app/tool.py\n',
      'solution/solve.sh': SH('set -e\npython3 tool.py\npython3 -m solution\ncat > gen.py <<\'EOF\'\nprint(2)\nEOF\npython3 gen.py\ncd /solution\npython3 solution.py') },
    want: [] },
];

describeCases('audit on causes of the pooled blind misses: one fixture per cause', CASES);
