-- A repair's photos as its resource lists them ({id, contentType, bytes, uploadedAt}, in the order they came), kept
-- on the repair by the statement that stores them (src/maintenance_pro/photo_queries.ts insertPhotos), so that a read
-- or a page of repairs reads them with the row. The photos themselves stay in repair_photos.
alter table repairs add column photos jsonb not null default '[]'::jsonb;

update repairs r set photos = p.list
from (
  select workspace_id, repair_id,
         jsonb_agg(jsonb_build_object('id', id, 'contentType', content_type, 'bytes', size, 'uploadedAt', iso(created_at))
                   order by created_at, id) as list
  from repair_photos
  group by workspace_id, repair_id
) p
where r.workspace_id = p.workspace_id and r.id = p.repair_id;
