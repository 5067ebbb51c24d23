import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseImagesOf, checkProblems } from '../../src/core/sandbox/engineCheck';

void describe('engineCheck: what the workspace needs from the engine', () => {
  void it('lists the images tasks start FROM, not their own stages, scratch or build arguments', () => {
    const images = baseImagesOf([
      { task: 'a', text: 'FROM debian:bookworm-slim\nRUN true\n' },
      { task: 'b', text: 'FROM --platform=linux/amd64 python:3.11-slim AS build\nFROM build\nFROM scratch\n' },
      { task: 'c', text: 'ARG BASE=x\nFROM ${BASE}\nFROM debian:bookworm-slim\n' },
    ]);
    assert.deepEqual([...images], [['debian:bookworm-slim', ['a', 'c']], ['python:3.11-slim', ['b']]]);
  });

  void it('says what is missing and how to get it, and nothing when all is there', () => {
    assert.deepEqual(checkProblems([{ endpoint: 'unix:///var/run/docker.sock', reachable: true, images: [{ image: 'debian:bookworm-slim', present: true, tasks: ['a'] }] }]), []);
    const [down] = checkProblems([{ endpoint: 'tcp://127.0.0.1:9', reachable: false, error: 'connect ECONNREFUSED', images: [] }]);
    assert.match(down ?? '', /tcp:\/\/127\.0\.0\.1:9 does not answer \(connect ECONNREFUSED\): start it/);
    const [missing] = checkProblems([{ endpoint: 'e', reachable: true, images: [{ image: 'alpine:3.20', present: false, tasks: ['t1', 't2'] }, { image: 'debian:12', present: true, tasks: ['t3'] }] }]);
    assert.match(missing ?? '', /e lacks 1 base image\(s\): alpine:3\.20 \(2 tasks: t1, t2\)\. Pull them \(`docker pull alpine:3\.20`\) or, offline, .*scripts\/base-images\.sh/);
  });
});
