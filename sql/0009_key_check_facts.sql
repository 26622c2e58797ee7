-- The key check (src/core/auth.ts) reads a workspace's modules and owner on every request. They are mirrored on
-- the workspace's own row, so the check reads two rows (the key and its workspace) instead of aggregating
-- workspace_modules and probing users each time. workspace_modules and users stay the source of truth; the
-- mirrors are written only by the triggers below, in the writing transaction, so the check never sees a
-- module or an owner other than the committed one.
--
-- Why incremental: each trigger changes only the workspace row's own mirror column with an expression of that
-- column (append, remove, set to this user). Under READ COMMITTED an UPDATE that waited for a concurrent
-- writer re-evaluates such an expression on the row that writer committed, so two transactions entitling two
-- modules at once both land. (Recomputing the mirror from workspace_modules would read the statement's older
-- snapshot and could drop the other transaction's module.)
alter table workspaces
  add column module_ids text[] not null default '{}',
  add column owner_user_id ident;

update workspaces w set
  module_ids = coalesce((select array_agg(m.module_id order by m.module_id) from workspace_modules m where m.workspace_id = w.id), '{}'),
  owner_user_id = (select u.id from users u where u.workspace_id = w.id and u.role = 'owner');

create function workspace_modules_mirror() returns trigger language plpgsql as $fn$
begin
  if TG_OP in ('UPDATE', 'DELETE') then
    update workspaces set module_ids = array_remove(module_ids, OLD.module_id) where id = OLD.workspace_id;
  end if;
  if TG_OP in ('INSERT', 'UPDATE') then
    update workspaces set module_ids = array_append(array_remove(module_ids, NEW.module_id), NEW.module_id)
    where id = NEW.workspace_id;
  end if;
  return null;
end
$fn$;

create trigger workspace_modules_mirror after insert or update or delete on workspace_modules
  for each row execute function workspace_modules_mirror();

-- At most one owner a workspace (users_one_owner): a change of owner demotes one user and promotes another, in
-- either order, and the mirror follows both.
create function users_owner_mirror() returns trigger language plpgsql as $fn$
begin
  if TG_OP in ('UPDATE', 'DELETE') and OLD.role = 'owner' then
    update workspaces set owner_user_id = null where id = OLD.workspace_id and owner_user_id = OLD.id;
  end if;
  if TG_OP in ('INSERT', 'UPDATE') and NEW.role = 'owner' then
    update workspaces set owner_user_id = NEW.id where id = NEW.workspace_id;
  end if;
  return null;
end
$fn$;

create trigger users_owner_mirror after insert or update of role, id, workspace_id or delete on users
  for each row execute function users_owner_mirror();
