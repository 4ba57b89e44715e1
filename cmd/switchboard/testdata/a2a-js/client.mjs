// Sends one message to the A2A agent at the URL of the first argument,
// with the text of the second, through the JavaScript SDK (@a2a-js/sdk),
// and prints the task it gets back as JSON: its state and the text of its
// artifacts.
import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState, taskStateToJSON } from '@a2a-js/sdk';

const [url, text, token] = process.argv.slice(2);
const factory = new ClientFactory();
// The SDK resolves the card's path against the URL as a browser would: a
// base URL that names a folder ends in a slash.
const client = await factory.createFromUrl(url.endsWith('/') ? url : url + '/');
const options = token ? { serviceParameters: { Authorization: `Bearer ${token}` } } : undefined;
const result = await client.sendMessage({
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
  },
}, options);
const texts = (result.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.content?.$case === 'text' ? p.content.value : ''));
console.log(JSON.stringify({
  id: result.id,
  state: taskStateToJSON(result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
  artifacts: texts,
}));
