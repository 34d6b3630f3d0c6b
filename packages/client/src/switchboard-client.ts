import { CcClient, type CcClientOptions } from './cc/cc-client.js';
import { HttpTransport, type TransportOptions } from './http/transport.js';
import { userAgent } from './version.js';
import { VoiceClient, type VoiceClientOptions } from './voice/voice-client.js';

type Credentials = { username: string; password: string };

export interface SwitchboardClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The application's product token for the User-Agent, e.g. `wallboard/1.0`. */
  application?: string;
  /** Credentials for the voice API (Basic), when it is used. */
  voice?: Credentials & Pick<VoiceClientOptions, 'socket'>;
  /** Credentials for the contact-center API (password grant), when it is used. */
  cc?: Credentials & Pick<CcClientOptions, 'socket'>;
  http?: Omit<TransportOptions, 'baseUrl' | 'userAgent'>;
}

/** Both APIs of one server, sharing one HTTP transport (one in-flight limit, one User-Agent). */
export class SwitchboardClient {
  private readonly transport: HttpTransport;
  private voiceClient: VoiceClient | undefined;
  private ccClient: CcClient | undefined;

  constructor(private readonly options: SwitchboardClientOptions) {
    this.transport = new HttpTransport({
      baseUrl: options.url,
      userAgent: userAgent(options.application),
      ...options.http,
    });
  }

  get voice(): VoiceClient {
    const creds = this.options.voice;
    if (!creds) throw new Error('no voice credentials were given');
    return (this.voiceClient ??= new VoiceClient({
      url: this.options.url,
      ...creds,
      transport: this.transport,
    }));
  }

  get cc(): CcClient {
    const creds = this.options.cc;
    if (!creds) throw new Error('no contact-center credentials were given');
    return (this.ccClient ??= new CcClient({ url: this.options.url, ...creds, transport: this.transport }));
  }

  /** Closes both event sockets. */
  async close(): Promise<void> {
    await Promise.all([this.voiceClient?.close(), this.ccClient?.close()]);
  }
}

export function createClient(options: SwitchboardClientOptions): SwitchboardClient {
  return new SwitchboardClient(options);
}
