import type { MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Connected Devices | VPN Account" }];

// The device list, terminate and Clear All arrive with the devices issue.
export default function ConnectedDevicesPage() {
  return (
    <section className="page">
      <h1>Connected Devices</h1>
      <p className="muted">The devices signed in to your account will appear here.</p>
    </section>
  );
}
