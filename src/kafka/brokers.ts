// Broker lists as KAFKA_BROKERS gives them.
import { KafkaSetupError } from './errors.js';

/** Splits "a:9092, b:9093" into ["a:9092", "b:9093"]; anything that is not host:port is an error. */
export function parseBrokers(brokers: string | readonly string[]): string[] {
  const list = (typeof brokers === 'string' ? brokers.split(',') : [...brokers]).map((b) => b.trim()).filter((b) => b !== '');
  if (list.length === 0) throw new KafkaSetupError('INVALID_BROKERS', 'The broker list is empty; expected host:port[,host:port].');
  for (const broker of list) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(broker);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      throw new KafkaSetupError('INVALID_BROKERS', `"${broker}" is not a broker address; expected host:port.`);
    }
  }
  return list;
}

/** The host of a "host:port" broker address, brackets taken off an IPv6 literal. */
export function brokerHost(broker: string): string {
  return broker.slice(0, broker.lastIndexOf(':')).replace(/^\[|\]$/g, '');
}

/** "host:port" of a broker, an IPv6 literal in brackets. */
export function brokerAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
