import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";

/** What a page for operators shows a user who is not one (docs/operations.md "Teams and users"). */
export function OperatorsOnly({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Notice tone="info" role="status" data-testid="operators-only">
        This page is for the installation&apos;s operators. Your account sees its own team&apos;s data; ask an operator if you need more.
      </Notice>
    </>
  );
}
