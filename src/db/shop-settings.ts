import type { ShopSettings } from '../domain/shop.js';
import type { DB } from './index.js';

/** The shop's settings (migration 026): one row, made by the migration. */
export function shopSettingsRepo(db: DB) {
  return {
    async get(): Promise<ShopSettings> {
      const r = await db.selectFrom('shop_settings').selectAll().where('id', '=', 'shop').executeTakeFirstOrThrow();
      return { name: r.name, address: r.address, gstin: r.gstin, phone: r.phone, email: r.email, bankDetails: r.bank_details, invoicePrefix: r.invoice_prefix, updatedAt: r.updated_at };
    },
    async update(f: Partial<Omit<ShopSettings, 'updatedAt'>>, now: string): Promise<void> {
      await db
        .updateTable('shop_settings')
        .set({ name: f.name, address: f.address, gstin: f.gstin, phone: f.phone, email: f.email, bank_details: f.bankDetails, invoice_prefix: f.invoicePrefix, updated_at: now })
        .where('id', '=', 'shop')
        .execute();
    },
  };
}
