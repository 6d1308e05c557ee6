-- CreateTable
CREATE TABLE "outbound_tenants" (
    "id" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbound_destinations" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "topics" TEXT[],
    "filter" JSONB,
    "config" JSONB NOT NULL DEFAULT '{}',
    "credentials_encrypted" TEXT,
    "delivery_metadata" JSONB,
    "metadata" JSONB,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbound_api_keys" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbound_api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbound_settings" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_settings_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "outbound_tenants_created_at_id_idx" ON "outbound_tenants"("created_at", "id");

-- CreateIndex
CREATE INDEX "outbound_destinations_tenant_id_created_at_idx" ON "outbound_destinations"("tenant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "outbound_api_keys_key_hash_key" ON "outbound_api_keys"("key_hash");

-- AddForeignKey
ALTER TABLE "outbound_destinations" ADD CONSTRAINT "outbound_destinations_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "outbound_tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
