-- CreateIndex
CREATE INDEX "EventDayCount_status_hidden_day_count_idx" ON "EventDayCount"("status", "hidden", "day", "count");
