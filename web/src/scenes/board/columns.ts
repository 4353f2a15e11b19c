import type { BoardColumn } from './moves';

export const STATUS_TITLES: Record<BoardColumn | 'CANCELLED', string> = {
  REQUESTED: 'Requested',
  APPROVED: 'Approved',
  PRINTING: 'Printing',
  DISPATCHED: 'Dispatched',
  DELIVERED: 'Delivered (14 days)',
  CANCELLED: 'Cancelled',
};
