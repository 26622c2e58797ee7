-- Landlord portal revocation: the operator's reason is kept with the access (a new invitation clears it).
alter table landlord_portal_access add column revoke_reason text;
