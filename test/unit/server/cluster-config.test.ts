import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultNodeId } from '../../../src/server/cluster-config.js';
import { ConfigError, parseConfig, usage } from '../../../src/server/config.js';

describe('cluster flags', () => {
  it('are off by default: a standalone server', () => {
    const c = parseConfig([], {});
    assert.deepEqual(c.nats, []);
    assert.equal(c.nodeId, undefined);
    assert.equal(c.leaseTtlMs, 5000);
    assert.equal(c.clusterName, 'switchboard');
    assert.equal(c.advertiseUrl, undefined);
  });

  it('read flags and SWITCHBOARD_* variables (flags win)', () => {
    const c = parseConfig(
      ['--nats', 'nats://a:4222, nats://b:4222', '--node-id', 'n1', '--lease-ttl-ms', '3000'],
      {
        SWITCHBOARD_DATABASE_URL: 'postgres://x/y',
        SWITCHBOARD_NODE_ID: 'from-env',
        SWITCHBOARD_CLUSTER_NAME: 'blue',
        SWITCHBOARD_ADVERTISE_URL: 'https://n1.example.com',
      },
    );
    assert.deepEqual(c.nats, ['nats://a:4222', 'nats://b:4222']);
    assert.equal(c.nodeId, 'n1');
    assert.equal(c.leaseTtlMs, 3000);
    assert.equal(c.clusterName, 'blue');
    assert.equal(c.advertiseUrl, 'https://n1.example.com');
  });

  it('refuse what cannot work, in one line', () => {
    const bad: [string[], RegExp][] = [
      [['--nats', 'nats://a:4222'], /needs --database-url/],
      [['--lease-ttl-ms', '500'], /out of range 1000\.\.600000/],
      [['--node-id', 'a.b'], /--node-id/],
      [['--node-id', 'x'.repeat(65)], /--node-id/],
      [['--cluster-name', 'a*'], /--cluster-name/],
      [['--advertise-url', 'ftp://x'], /--advertise-url/],
      [['--nats', 'nats://a:1,'], /needs --database-url/],
      [['--nats', ','], /expected nats:\/\/host:port/],
    ];
    for (const [args, re] of bad) {
      assert.throws(
        () => parseConfig(args, {}),
        (e: unknown) => e instanceof ConfigError && re.test(e.message) && !e.message.includes('\n'),
        args.join(' '),
      );
    }
  });

  it('are in --help', () => {
    for (const flag of [
      '--nats',
      '--node-id',
      '--lease-ttl-ms',
      '--drain-ms',
      '--cluster-name',
      '--advertise-url',
    ]) {
      assert.match(usage(), new RegExp(`  ${flag} <value>`));
    }
  });

  it('the default node id is one NATS subject token', () => {
    assert.equal(defaultNodeId('web-1.example.com', 42, 'a1b2c3'), 'web-1-example-com-42-a1b2c3');
    assert.match(defaultNodeId('', 1, 'ff'), /^node-1-ff$/);
  });
});
