-- Written by hand (Prisma does not model triggers): a term's `count` (its published events) is
-- kept by the database on every write of a link or of an event's status, instead of being
-- counted again from the links after each write (which read every link of the term, growing
-- with the calendar). The row lock the increment takes makes concurrent writers of one term
-- count one after the other; it does not conflict with the key-share lock of a new link's
-- foreign key.
-- An event's links are removed before the event itself (BEFORE DELETE), while the event can
-- still say whether it was published; the removal cascading from the event then finds none.
CREATE FUNCTION "event_term_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "EventTerm" WHERE "eventId" = OLD."id";
    RETURN OLD;
  END IF;
  IF (OLD."status" = 'publish') <> (NEW."status" = 'publish') THEN
    UPDATE "Term" SET "count" = "count" + (CASE WHEN NEW."status" = 'publish' THEN 1 ELSE -1 END)
      WHERE "id" IN (SELECT "termId" FROM "EventTerm" WHERE "eventId" = NEW."id");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Event_term_counts_delete" BEFORE DELETE ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "event_term_counts"();

CREATE TRIGGER "Event_term_counts_status" AFTER UPDATE OF "status" ON "Event"
  FOR EACH ROW EXECUTE FUNCTION "event_term_counts"();

CREATE FUNCTION "event_link_term_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "Term" SET "count" = "count" - 1
      WHERE "id" = OLD."termId" AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = OLD."eventId" AND "status" = 'publish');
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "Term" SET "count" = "count" + 1
      WHERE "id" = NEW."termId" AND EXISTS (SELECT 1 FROM "Event" WHERE "id" = NEW."eventId" AND "status" = 'publish');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "EventTerm_counts" AFTER INSERT OR DELETE OR UPDATE OF "eventId", "termId" ON "EventTerm"
  FOR EACH ROW EXECUTE FUNCTION "event_link_term_counts"();

UPDATE "Term" SET "count" = (
  SELECT COUNT(*) FROM "EventTerm" JOIN "Event" ON "Event"."id" = "EventTerm"."eventId"
  WHERE "EventTerm"."termId" = "Term"."id" AND "Event"."status" = 'publish'
);
