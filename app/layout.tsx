import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "Hookyard · Webhook inspector", template: "%s · Hookyard" },
  description: "Create a test URL in one click and inspect every webhook request it receives, live.",
  icons: { icon: [{ url: "/favicon.svg", type: "image/svg+xml" }] },
  applicationName: "Hookyard",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request: Next.js puts proxy.ts's fresh CSP nonce on its scripts only at
  // request time (docs/security-headers.md); a page prerendered at build would have none and not run.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
