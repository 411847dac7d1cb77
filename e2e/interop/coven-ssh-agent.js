#!/usr/bin/env node
// A Coven agent that authenticates the way coven's own agents do: with an ed25519 SSH key instead
// of a bearer token. Every AgentStream call carries
//
//   x-ssh-pubkey     the public key, authorized-keys format: "ssh-ed25519 <base64 blob> <comment>"
//   x-ssh-timestamp  unix seconds
//   x-ssh-nonce      16 random bytes in hex, fresh for every call
//   x-ssh-signature  base64 of Go's ssh.Signature wire format over "<timestamp>|<nonce>":
//                    SSH string "ssh-ed25519", then SSH string <64-byte ed25519 signature>
//
// (an SSH string is a 4-byte big-endian length followed by the bytes). Plain Node.js crypto,
// @grpc/grpc-js and coven.proto loaded at run time; nothing is shared with the gateway's code.
//
// The key lives in --key (PKCS#8 PEM); it is generated there when missing, like coven-agent's
// ~/.config/coven/agent_key. With --print-key the agent prints its key line and fingerprint, and exits.
//
// When the gateway answers PERMISSION_DENIED (an unknown key waiting for an admin's approval), the
// agent tries again, with a fresh signature, every --retry-ms, up to --retries times.
//
// Once registered it answers "echo <words>" with the words as text chunks and done; anything else
// with an error. Progress lines go to stderr as "coven-agent: <event> key=value ...". It exits 0 on
// a Shutdown or SIGTERM/SIGINT, 1 when refused for good or dropped.
//
// Usage:
//   node coven-ssh-agent.js --key path/agent_key --proto path/to/coven.proto [--print-key]
//     [--address 127.0.0.1:50051] [--agent-id id] [--name name] [--comment text] [--retry-ms 500] [--retries 60]
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function log(event, fields = {}) {
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${quote(v)}`);
  process.stderr.write(`coven-agent: ${event}${parts.length ? ' ' + parts.join(' ') : ''}\n`);
}

function quote(value) {
  const s = String(value);
  return /^[^\s"=]*$/.test(s) && s !== '' ? s : JSON.stringify(s);
}

function parseArgs(argv) {
  const opts = {
    address: '127.0.0.1:50051',
    proto: '',
    key: '',
    printKey: false,
    agentId: `node-ssh-agent-${process.pid}`,
    name: 'node ssh agent',
    comment: `node-ssh-agent@${os.hostname()}`,
    retryMs: 500,
    retries: 60,
  };
  const text = { '--address': 'address', '--proto': 'proto', '--key': 'key', '--agent-id': 'agentId', '--name': 'name', '--comment': 'comment' };
  const numeric = { '--retry-ms': 'retryMs', '--retries': 'retries' };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--print-key') {
      opts.printKey = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined || !(flag in text || flag in numeric)) {
      throw new Error(`unknown or incomplete option '${flag}'`);
    }
    if (flag in numeric) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) {
        throw new Error(`${flag} must be a whole number, got '${value}'`);
      }
      opts[numeric[flag]] = n;
    } else {
      opts[text[flag]] = value;
    }
  }
  if (!opts.key) {
    throw new Error('--key (the PKCS#8 PEM file of the ed25519 key) is required');
  }
  if (!opts.printKey && !opts.proto) {
    throw new Error('--proto (the path of coven.proto) is required');
  }
  return opts;
}

// ---- SSH wire format ----------------------------------------------------------------------------

function sshString(bytes) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, Buffer.from(bytes)]);
}

class SshKey {
  constructor(privateKey, comment) {
    this.privateKey = privateKey;
    // the JWK 'x' of an Ed25519 key is its 32-byte public key (RFC 8037), which is what SSH carries
    const raw = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url');
    this.blob = Buffer.concat([sshString('ssh-ed25519'), sshString(raw)]);
    this.comment = comment;
  }

  static loadOrGenerate(file, comment) {
    if (!fs.existsSync(file)) {
      const { privateKey } = crypto.generateKeyPairSync('ed25519');
      fs.writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      log('key-generated', { file });
    }
    return new SshKey(crypto.createPrivateKey(fs.readFileSync(file)), comment);
  }

  /** The authorized-keys line. */
  line() {
    return `ssh-ed25519 ${this.blob.toString('base64')}${this.comment ? ' ' + this.comment : ''}`;
  }

  /** Lower-case hex SHA-256 of the key blob: what the gateway stores as the principal's pubkey_fp. */
  fingerprint() {
    return crypto.createHash('sha256').update(this.blob).digest('hex');
  }

  /** Fresh x-ssh-* call metadata: a new timestamp and nonce, signed. */
  metadata() {
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = crypto.randomBytes(16).toString('hex');
    const signature = crypto.sign(null, Buffer.from(`${timestamp}|${nonce}`, 'utf8'), this.privateKey);
    const wire = Buffer.concat([sshString('ssh-ed25519'), sshString(signature)]);
    const metadata = new grpc.Metadata();
    metadata.set('x-ssh-pubkey', this.line());
    metadata.set('x-ssh-signature', wire.toString('base64'));
    metadata.set('x-ssh-timestamp', String(timestamp));
    metadata.set('x-ssh-nonce', nonce);
    return metadata;
  }
}

// ---- the agent ----------------------------------------------------------------------------------

function loadCoven(protoPath) {
  const definition = protoLoader.loadSync(path.basename(protoPath), {
    includeDirs: [path.dirname(path.resolve(protoPath))],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).coven;
}

class Agent {
  constructor(opts, key, coven) {
    this.opts = opts;
    this.key = key;
    this.client = new coven.CovenControl(opts.address, grpc.credentials.createInsecure());
    this.call = null;
    this.attempt = 0;
    this.heartbeat = null;
    this.stopping = false;
  }

  connect() {
    this.attempt++;
    log('connecting', { address: this.opts.address, agent: this.opts.agentId, attempt: this.attempt, fingerprint: this.key.fingerprint() });
    const call = this.client.AgentStream(this.key.metadata());
    this.call = call;
    call.once('metadata', () => this.register(call));
    call.on('data', (message) => this.onMessage(message));
    call.on('error', (err) => this.onError(call, err));
    call.on('end', () => {
      if (!this.stopping && call === this.call) {
        log('stream-ended-by-gateway');
        this.exit(1);
      }
    });
  }

  register(call) {
    call.write({
      register: {
        agent_id: this.opts.agentId,
        name: this.opts.name,
        capabilities: ['chat'],
        metadata: { working_directory: process.cwd(), hostname: os.hostname(), os: process.platform, workspaces: ['interop'], backend: 'node-ssh' },
        protocol_features: [],
      },
    });
    log('register-sent', { agent: this.opts.agentId });
  }

  onError(call, err) {
    if (this.stopping || call !== this.call) {
      return;
    }
    const code = grpc.status[err.code] || err.code;
    log('refused', { code, details: err.details || err.message, attempt: this.attempt });
    if (err.code === grpc.status.PERMISSION_DENIED && this.attempt <= this.opts.retries) {
      // most likely a new key waiting for an admin's approval: try again, freshly signed
      this.call = null; // this call is over; its 'end' is no reason to exit
      setTimeout(() => this.connect(), this.opts.retryMs);
      return;
    }
    this.exit(1);
  }

  onMessage(message) {
    switch (message.payload) {
      case 'welcome': {
        const w = message.welcome;
        log('welcome', { agent: w.agent_id, server: w.server_id, principal: w.principal_id, attempt: this.attempt });
        this.heartbeat = setInterval(() => this.call.write({ heartbeat: { timestamp_ms: String(Date.now()) } }), 1000);
        return;
      }
      case 'registration_error':
        log('registration-error', { reason: message.registration_error.reason });
        return this.exit(1);
      case 'send_message':
        return this.answer(message.send_message);
      case 'shutdown':
        log('shutdown', { reason: message.shutdown.reason });
        return this.exit(0);
      default:
        return log('ignored', { payload: message.payload });
    }
  }

  answer(msg) {
    log('request', { request: msg.request_id, content: msg.content });
    const [command, ...words] = msg.content.trim().split(/\s+/);
    const respond = (event) => this.call.write({ response: { request_id: msg.request_id, ...event } });
    if (command !== 'echo') {
      respond({ error: `unknown command '${command}'` });
      return log('answered', { request: msg.request_id, terminal: 'error' });
    }
    words.forEach((word, i) => respond({ text: i === 0 ? word : ` ${word}` }));
    respond({ done: { full_response: '' } });
    log('answered', { request: msg.request_id, terminal: 'done', words: words.length });
  }

  exit(code) {
    if (this.stopping) {
      return;
    }
    this.stopping = true;
    clearInterval(this.heartbeat);
    if (this.call && !this.call.writableEnded) {
      this.call.end();
    }
    setTimeout(() => {
      this.client.close();
      log('exit', { code });
      process.exit(code);
    }, 100);
  }
}

function main() {
  process.stderr.on('error', () => {});
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    log('usage-error', { error: err.message });
    process.exit(2);
  }
  const key = SshKey.loadOrGenerate(opts.key, opts.comment);
  if (opts.printKey) {
    process.stdout.write(`${key.line()}\n${key.fingerprint()}\n`);
    return;
  }
  const agent = new Agent(opts, key, loadCoven(opts.proto));
  process.on('SIGTERM', () => agent.exit(0));
  process.on('SIGINT', () => agent.exit(0));
  agent.connect();
}

main();
