// A client for outage tests: the service's client seam over kafkajs, whose connections can be cut and
// refused as in a broker outage (kafkajs only: @platformatic/kafka takes no socket of the caller's).
import { Socket } from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { kafkajsClientOf } from '../../../src/kafka/kafkajs/kafkajs-adapter.js';
import { testBrokers } from '../../support/kafka.js';

/**
 * A kafkajs client whose connections the test can cut: disrupt() destroys every open socket and makes
 * new ones fail (as a broker outage would) until restore().
 */
export function breakableKafka(clientId: string) {
  const sockets = new Set<Socket>();
  let down = false;
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = new Socket();
    socket.setKeepAlive(true, 60_000);
    if (down) {
      // Port 1 on loopback refuses the connection.
      socket.connect(1, '127.0.0.1', onConnect);
    } else {
      socket.connect(port, host, onConnect);
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }
    return socket;
  };
  const kafka = new Kafka({
    clientId,
    brokers: [testBrokers()],
    socketFactory,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    logLevel: logLevel.NOTHING,
  });
  return {
    kafka: kafkajsClientOf(kafka, [testBrokers()]),
    disrupt: async () => {
      down = true;
      // As a reset from a crashed broker: kafkajs reacts to 'error' (and 'end'), not to a bare 'close'.
      for (const s of sockets) s.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    },
    restore: async () => {
      down = false;
    },
  };
}
