#!/usr/bin/env node
// A Coven agent written the way a third party writes one: plain Node.js, @grpc/grpc-js, and the
// Coven contract (coven.proto) loaded at run time with @grpc/proto-loader. Nothing here is
// generated from or shared with the gateway's Java code.
//
// Its behaviour is scripted by the content of each message it receives:
//
//   echo <words>   streams <words> back as text chunks (one per word), reports token usage, done.
//                  Context injected since the previous request is acknowledged in an extra chunk
//                  "[context <priority> from <source>: <content>]".
//   approve-me     announces a tool call, asks for approval and waits for the human's decision;
//                  then runs it (approved) or skips it (denied) and finishes with done.
//   long           streams a text chunk every --tick-ms until the gateway cancels the request,
//                  then answers "cancelled" echoing the reason; gives up with done after --long-ms.
//   anything else  ends the request with an error naming the content.
//
// Usage:
//   COVEN_AGENT_TOKEN=<token> node coven-agent.js --address 127.0.0.1:50051 --proto path/to/coven.proto \
//     [--agent-id id] [--name name] [--heartbeat-ms 5000] [--tick-ms 200] [--long-ms 30000]
// With COVEN_TLS_CA_FILE=<ca.pem> it connects over TLS, trusting that CA (grpc-js checks the host name).
//
// Every progress line goes to stderr as "coven-agent: <event> key=value ...". The agent exits 0 on
// a Shutdown from the gateway or on SIGTERM/SIGINT, 1 when the gateway refuses or drops it.
'use strict';

const os = require('os');
const path = require('path');
const fs = require('fs');
const { once } = require('events');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const FEATURES = ['token_usage', 'tool_states', 'injection', 'cancellation'];

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
    address: process.env.COVEN_GATEWAY_ADDRESS || '127.0.0.1:50051',
    proto: process.env.COVEN_PROTO || '',
    token: process.env.COVEN_AGENT_TOKEN || '',
    agentId: process.env.COVEN_AGENT_ID || `node-agent-${os.hostname()}-${process.pid}`,
    name: process.env.COVEN_AGENT_NAME || 'node interop agent',
    heartbeatMs: 5000,
    tickMs: 200,
    longMs: 30000,
  };
  const numeric = { '--heartbeat-ms': 'heartbeatMs', '--tick-ms': 'tickMs', '--long-ms': 'longMs' };
  const text = { '--address': 'address', '--proto': 'proto', '--agent-id': 'agentId', '--name': 'name' };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || !(flag in numeric || flag in text)) {
      throw new Error(`unknown or incomplete option '${flag}'`);
    }
    if (flag in numeric) {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) {
        throw new Error(`${flag} must be a positive integer, got '${value}'`);
      }
      opts[numeric[flag]] = n;
    } else {
      opts[text[flag]] = value;
    }
    i++;
  }
  if (!opts.proto) {
    throw new Error('the path of coven.proto is required: --proto or COVEN_PROTO');
  }
  if (!fs.existsSync(opts.proto)) {
    throw new Error(`coven.proto not found at ${opts.proto}`);
  }
  if (!opts.token) {
    throw new Error('an agent token is required in COVEN_AGENT_TOKEN');
  }
  return opts;
}

function loadCoven(protoPath) {
  // coven.proto imports google/protobuf/empty.proto; proto-loader (protobufjs) bundles the
  // well-known types, so only the directory of coven.proto itself is an include dir.
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Agent {
  constructor(opts, coven) {
    this.opts = opts;
    const credentials = process.env.COVEN_TLS_CA_FILE
      ? grpc.credentials.createSsl(fs.readFileSync(process.env.COVEN_TLS_CA_FILE))
      : grpc.credentials.createInsecure();
    this.client = new coven.CovenControl(opts.address, credentials);
    this.call = null;
    this.registered = false;
    this.current = null; // the request being worked on; the gateway sends one at a time
    this.pendingContext = []; // injections not yet mentioned in an answer
    this.heartbeat = null;
    this.stopping = false;
    this.finished = false;
    this.exitCode = 0;
  }

  start() {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${this.opts.token}`);
    log('connecting', { address: this.opts.address, agent: this.opts.agentId });
    this.call = this.client.AgentStream(metadata);
    // Coven gateways send response headers first; registration follows them.
    this.call.once('metadata', () => this.register());
    this.call.on('data', (message) => this.onMessage(message));
    this.call.on('error', (err) => this.onStreamError(err));
    this.call.on('end', () => this.onStreamEnd());
    this.call.on('status', (status) => log('status', { code: grpc.status[status.code] || status.code, details: status.details }));
  }

  register() {
    this.send({
      register: {
        agent_id: this.opts.agentId,
        name: this.opts.name,
        capabilities: ['chat', 'tools'],
        metadata: {
          working_directory: process.cwd(),
          hostname: os.hostname(),
          os: process.platform,
          workspaces: ['interop'],
          backend: 'node-grpc-js',
        },
        protocol_features: FEATURES,
      },
    });
    log('register-sent', { agent: this.opts.agentId, features: FEATURES.join(',') });
  }

  /** Writes one message, honouring the stream's backpressure. */
  async send(message) {
    if (!this.call || this.call.writableEnded || this.call.destroyed) {
      throw new Error('the stream is closed');
    }
    if (!this.call.write(message)) {
      await once(this.call, 'drain');
    }
  }

  respond(requestId, event) {
    return this.send({ response: { request_id: requestId, ...event } });
  }

  onMessage(message) {
    switch (message.payload) {
      case 'welcome':
        return this.onWelcome(message.welcome);
      case 'registration_error':
        log('registration-error', { reason: message.registration_error.reason, suggested: message.registration_error.suggested_id });
        this.exitCode = 1;
        return this.stop('registration refused');
      case 'send_message':
        return this.onSendMessage(message.send_message);
      case 'tool_approval':
        return this.onToolApproval(message.tool_approval);
      case 'cancel_request':
        return this.onCancel(message.cancel_request);
      case 'inject_context':
        return this.onInject(message.inject_context);
      case 'pack_tool_result':
        return log('pack-tool-result', { request: message.pack_tool_result.request_id });
      case 'shutdown':
        log('shutdown', { reason: message.shutdown.reason });
        return this.stop(`gateway asked: ${message.shutdown.reason}`);
      default:
        return log('ignored', { payload: message.payload });
    }
  }

  onWelcome(welcome) {
    this.registered = true;
    log('welcome', {
      agent: welcome.agent_id,
      server: welcome.server_id,
      instance: welcome.instance_id,
      principal: welcome.principal_id,
      tools: welcome.available_tools.length,
    });
    this.heartbeat = setInterval(() => {
      this.send({ heartbeat: { timestamp_ms: String(Date.now()) } }).catch((err) => log('heartbeat-failed', { error: err.message }));
    }, this.opts.heartbeatMs);
  }

  onSendMessage(msg) {
    if (this.current) {
      // the protocol promises one request at a time; say so rather than interleave
      log('protocol-violation', { request: msg.request_id, busy_with: this.current.id });
      this.respond(msg.request_id, { error: 'agent busy with another request' }).catch(() => {});
      return;
    }
    const request = { id: msg.request_id, content: msg.content, cancelled: null, approvals: new Map() };
    this.current = request;
    log('request', { request: request.id, thread: msg.thread_id, sender: msg.sender, content: msg.content });
    this.work(request)
      .catch((err) => {
        log('request-failed', { request: request.id, error: err.message });
        return this.respond(request.id, { error: `agent failed: ${err.message}` }).catch(() => {});
      })
      .finally(() => {
        this.current = null;
        if (this.stopping) {
          this.finish();
        }
      });
  }

  async work(request) {
    const [command, ...rest] = request.content.trim().split(/\s+/);
    switch (command) {
      case 'echo':
        return this.echo(request, rest);
      case 'approve-me':
        return this.toolWithApproval(request);
      case 'long':
        return this.longRunning(request);
      default:
        await this.respond(request.id, { error: `unknown command '${command}'` });
        log('answered', { request: request.id, terminal: 'error' });
    }
  }

  async echo(request, words) {
    await this.respond(request.id, { thinking: `echoing ${words.length} words` });
    for (let i = 0; i < words.length; i++) {
      await this.respond(request.id, { text: i === 0 ? words[i] : ` ${words[i]}` });
    }
    const context = this.pendingContext.splice(0);
    for (const c of context) {
      await this.respond(request.id, { text: ` [context ${c.priority} from ${c.source}: ${c.content}]` });
    }
    await this.respond(request.id, {
      usage: { input_tokens: words.length, output_tokens: words.length, cache_read_tokens: 0, cache_write_tokens: 0, thinking_tokens: 1 },
    });
    await this.respond(request.id, { done: { full_response: '' } });
    log('answered', { request: request.id, terminal: 'done', words: words.length, context: context.length });
  }

  async toolWithApproval(request) {
    const tool = { id: `tool-${request.id.slice(0, 8)}`, name: 'shell', input_json: JSON.stringify({ command: 'ls -la' }) };
    await this.respond(request.id, { tool_use: tool });
    await this.respond(request.id, { tool_state: { id: tool.id, state: 'TOOL_STATE_AWAITING_APPROVAL' } });
    const decision = new Promise((resolve) => request.approvals.set(tool.id, resolve));
    await this.respond(request.id, { tool_approval_request: tool });
    log('approval-asked', { request: request.id, tool: tool.id });
    const answer = await Promise.race([decision, this.cancellation(request)]);
    if (request.cancelled !== null) {
      await this.respond(request.id, { tool_state: { id: tool.id, state: 'TOOL_STATE_CANCELLED' } });
      return this.confirmCancel(request);
    }
    if (answer.approved) {
      await this.respond(request.id, { tool_state: { id: tool.id, state: 'TOOL_STATE_RUNNING' } });
      await this.respond(request.id, { tool_result: { id: tool.id, output: 'total 0', is_error: false } });
      await this.respond(request.id, { tool_state: { id: tool.id, state: 'TOOL_STATE_COMPLETED' } });
      await this.respond(request.id, { text: `tool ${tool.name} approved and ran` });
    } else {
      await this.respond(request.id, { tool_state: { id: tool.id, state: 'TOOL_STATE_DENIED', detail: 'denied by a human' } });
      await this.respond(request.id, { tool_result: { id: tool.id, output: 'not run: denied', is_error: true } });
      await this.respond(request.id, { text: `tool ${tool.name} denied; skipped` });
    }
    await this.respond(request.id, { usage: { input_tokens: 10, output_tokens: 5 } });
    await this.respond(request.id, { done: { full_response: '' } });
    log('answered', { request: request.id, terminal: 'done', approved: answer.approved });
  }

  async longRunning(request) {
    const deadline = Date.now() + this.opts.longMs;
    let tick = 0;
    while (request.cancelled === null && Date.now() < deadline) {
      await this.respond(request.id, { text: `tick ${tick++} ` });
      await Promise.race([sleep(this.opts.tickMs), this.cancellation(request)]);
    }
    if (request.cancelled !== null) {
      return this.confirmCancel(request);
    }
    await this.respond(request.id, { done: { full_response: '' } });
    log('answered', { request: request.id, terminal: 'done', ticks: tick });
  }

  async confirmCancel(request) {
    await this.respond(request.id, { cancelled: { reason: request.cancelled } });
    log('answered', { request: request.id, terminal: 'cancelled', reason: request.cancelled });
  }

  /** Resolves once the request is cancelled. */
  cancellation(request) {
    if (!request.cancelledPromise) {
      request.cancelledPromise = new Promise((resolve) => {
        request.onCancel = resolve;
      });
    }
    return request.cancelledPromise;
  }

  onToolApproval(answer) {
    const request = this.current;
    const resolve = request && request.approvals.get(answer.id);
    log('approval', { tool: answer.id, approved: answer.approved, approve_all: answer.approve_all, known: Boolean(resolve) });
    if (resolve) {
      request.approvals.delete(answer.id);
      resolve(answer);
    }
  }

  onCancel(cancel) {
    const request = this.current;
    const matches = request !== null && request.id === cancel.request_id;
    const reason = cancel.reason || 'cancelled';
    log('cancel', { request: cancel.request_id, reason, in_flight: matches });
    if (matches && request.cancelled === null) {
      request.cancelled = reason;
      this.cancellation(request);
      request.onCancel();
    }
  }

  onInject(injection) {
    const priority = String(injection.priority).replace('INJECTION_PRIORITY_', '').toLowerCase();
    const source = injection.source || 'unknown';
    this.pendingContext.push({ id: injection.injection_id, content: injection.content, priority, source });
    log('injection', { id: injection.injection_id, priority, source, content: injection.content });
    this.send({ injection_ack: { injection_id: injection.injection_id, accepted: true } })
      .then(() => log('injection-acked', { id: injection.injection_id, accepted: true }))
      .catch((err) => log('injection-ack-failed', { id: injection.injection_id, error: err.message }));
  }

  onStreamError(err) {
    if (this.stopping) {
      return;
    }
    log('stream-error', { code: grpc.status[err.code] || err.code, details: err.details || err.message });
    this.exitCode = 1;
    this.stop('stream failed');
  }

  onStreamEnd() {
    if (!this.stopping) {
      log('stream-ended-by-gateway');
      this.exitCode = this.exitCode || 1;
      this.stop('stream ended by the gateway');
    }
  }

  /** Finishes the current request (if any), then disconnects. */
  stop(why) {
    if (this.stopping) {
      return;
    }
    this.stopping = true;
    log('stopping', { why, in_flight: this.current ? this.current.id : 'none' });
    if (!this.current) {
      this.finish();
    }
  }

  finish() {
    if (this.finished) {
      return;
    }
    this.finished = true;
    clearInterval(this.heartbeat);
    if (this.call && !this.call.writableEnded) {
      this.call.end();
    }
    // let the half-close reach the gateway before the channel goes
    setTimeout(() => {
      this.client.close();
      log('exit', { code: this.exitCode });
      process.exit(this.exitCode);
    }, 100);
  }

  /** SIGTERM/SIGINT: a request in flight ends with an error now rather than never. */
  terminate(signal) {
    log('signal', { signal });
    const request = this.current;
    if (request && this.call && !this.call.writableEnded) {
      this.current = null;
      this.respond(request.id, { error: `agent stopped by ${signal}` }).catch(() => {});
    }
    this.stop(signal);
  }
}

function main() {
  // progress lines are best effort: a closed log pipe must not take the agent down
  process.stderr.on('error', () => {});
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    log('usage-error', { error: err.message });
    process.exit(2);
  }
  const agent = new Agent(opts, loadCoven(opts.proto));
  process.on('SIGTERM', () => agent.terminate('SIGTERM'));
  process.on('SIGINT', () => agent.terminate('SIGINT'));
  agent.start();
}

main();
