import type { Metadata } from "next";
import { Settings } from "@/components/dashboard/pages/Settings";

export const metadata: Metadata = { title: "Settings" };

/** The signed-in user's team's API keys, users and CLI key; outbound settings and portal branding for operators (docs/dashboard.md "Settings"). */
export default function Page() {
  return <Settings />;
}
