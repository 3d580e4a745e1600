import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid, Position, positionFromString } from '@larder/kernel';
import type { TraceKind, TraceTarget } from '@larder/trace-destinations/events';
import { TRACE_DESTINATIONS_TABLE as T } from './trace-destinations.tables';

export interface TraceDestinationRow {
  id: string;
  organizationId: string;
  name: string;
  target: TraceTarget;
  enabled: boolean;
  traceKinds: TraceKind[];
  credentialsRef: string | null;
  credentialsVersion: number;
  credentialsUpdatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** Where in the log it was created: it receives the runs recorded after this. */
  createdPosition: Position;
}

const toRow = (r: Record<string, unknown>): TraceDestinationRow => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  target: r.target as TraceTarget,
  enabled: r.enabled as boolean,
  traceKinds: r.trace_kinds as TraceKind[],
  credentialsRef: (r.credentials_ref as string | null) ?? null,
  credentialsVersion: Number(r.credentials_version),
  credentialsUpdatedAt: r.credentials_updated_at as Date,
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
  createdPosition: positionFromString(r.created_position as string),
});

/** Queries over the `trace-destinations` read model, always scoped to an organization. */
@Injectable()
export class TraceDestinationsReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string, id: string): Promise<TraceDestinationRow | null> {
    if (!isUuid(id)) return null;
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT * FROM ${T} WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async list(
    organizationId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: TraceDestinationRow[]; total: number }> {
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT * FROM ${T} WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [organizationId, limit, offset],
    );
    const counted: Array<{ n: number }> = await this.ds.query(
      `SELECT count(*)::int AS n FROM ${T} WHERE organization_id = $1`,
      [organizationId],
    );
    const n = counted[0].n;
    return { rows: rows.map(toRow), total: n };
  }

  /** The enabled destinations of these organizations that export some trace kind (the export reactor's question). */
  async enabledOf(organizationIds: string[]): Promise<TraceDestinationRow[]> {
    if (!organizationIds.length) return [];
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT * FROM ${T} WHERE organization_id = ANY($1::text[]) AND enabled`,
      [organizationIds],
    );
    return rows.map(toRow);
  }
}
