package mail

import (
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// Metrics counts what the Poller and the Sender do. The zero value is ready
// to use and safe for concurrent use; share one between a Poller and a
// Sender, or keep one each.
type Metrics struct {
	// Processed counts inbound messages the Handler committed.
	Processed atomic.Int64
	// Rejected counts inbound messages moved to the Rejected folder.
	Rejected atomic.Int64
	// TempFailures counts Handler calls that failed temporarily (the
	// message stays unseen for a later retry).
	TempFailures atomic.Int64
	// Panics counts Handler panics (recovered; the message is rejected).
	Panics atomic.Int64
	// Stuck is the number of messages in the inbox that failed temporarily
	// more than PollerOptions.StuckAfter times and are still retried (a
	// gauge, not a counter).
	Stuck atomic.Int64
	// Copies counts the copies of the referee's own replies expunged
	// from its mailbox ([Copies]).
	Copies atomic.Int64
	// Resent counts replies sent again after a restart because no copy
	// of them turned up within CopiesOptions.Wait: each may have
	// reached its recipients twice.
	Resent atomic.Int64
	// Reconnects counts IMAP connection attempts after the first.
	Reconnects atomic.Int64
	// Queued counts replies written to the outbox. The Sender cannot see
	// the outbox being written: the application adds to it when it commits.
	Queued atomic.Int64
	// Sent counts replies the SMTP server accepted.
	Sent atomic.Int64
	// Retried counts failed delivery attempts that were rescheduled.
	Retried atomic.Int64
	// Failed counts replies given up on after repeated permanent errors.
	Failed atomic.Int64

	// Latency is the processing latency of committed messages: from the
	// moment the poller fetched the message to the Handler's commit.
	Latency Histogram
}

// latencyBuckets are the upper bounds, in seconds, of the Histogram buckets.
var latencyBuckets = [...]float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Histogram is a fixed-bucket histogram of durations, in the shape of a
// Prometheus histogram. The zero value is ready to use.
type Histogram struct {
	counts [len(latencyBuckets) + 1]atomic.Int64 // the last is +Inf
	sumNs  atomic.Int64
	count  atomic.Int64
}

// Observe records one duration.
func (h *Histogram) Observe(d time.Duration) {
	s := d.Seconds()
	i := 0
	for i < len(latencyBuckets) && s > latencyBuckets[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNs.Add(int64(d))
	h.count.Add(1)
}

// Count returns the number of observations.
func (h *Histogram) Count() int64 { return h.count.Load() }

// Sum returns the total of the observations.
func (h *Histogram) Sum() time.Duration { return time.Duration(h.sumNs.Load()) }

// WritePrometheus writes the metrics in the Prometheus text exposition
// format, each name prefixed with prefix (e.g. "pbem_mail_").
func (m *Metrics) WritePrometheus(w io.Writer, prefix string) error {
	pw := &promWriter{w: w}
	counter := func(name, help string, v *atomic.Int64) {
		pw.printf("# HELP %s%s %s\n# TYPE %s%s counter\n%s%s %d\n",
			prefix, name, help, prefix, name, prefix, name, v.Load())
	}
	counter("messages_processed_total", "Inbound messages processed and committed.", &m.Processed)
	counter("messages_rejected_total", "Inbound messages moved to the Rejected folder.", &m.Rejected)
	counter("handler_temporary_failures_total", "Handler calls that failed temporarily.", &m.TempFailures)
	counter("handler_panics_total", "Handler panics recovered.", &m.Panics)
	counter("imap_reconnects_total", "IMAP reconnection attempts.", &m.Reconnects)
	counter("reply_copies_expunged_total", "Copies of the referee's replies expunged from its mailbox.", &m.Copies)
	counter("replies_resent_total", "Replies sent again after a restart, no copy found (possibly doubled).", &m.Resent)
	pw.printf("# HELP %smessages_stuck Inbound messages that failed temporarily more times than allowed, still retried.\n# TYPE %smessages_stuck gauge\n%smessages_stuck %d\n",
		prefix, prefix, prefix, m.Stuck.Load())
	counter("replies_queued_total", "Replies written to the outbox.", &m.Queued)
	counter("replies_sent_total", "Replies accepted by the SMTP server.", &m.Sent)
	counter("replies_retried_total", "Reply delivery attempts that failed and were rescheduled.", &m.Retried)
	counter("replies_failed_total", "Replies given up on after permanent errors.", &m.Failed)

	name := prefix + "processing_latency_seconds"
	pw.printf("# HELP %s Time from fetching an inbound message to the handler's commit.\n# TYPE %s histogram\n", name, name)
	var cum int64
	for i, le := range latencyBuckets {
		cum += m.Latency.counts[i].Load()
		pw.printf("%s_bucket{le=%q} %d\n", name, strconv.FormatFloat(le, 'g', -1, 64), cum)
	}
	cum += m.Latency.counts[len(latencyBuckets)].Load()
	pw.printf("%s_bucket{le=\"+Inf\"} %d\n", name, cum)
	pw.printf("%s_sum %s\n", name, strconv.FormatFloat(m.Latency.Sum().Seconds(), 'g', -1, 64))
	pw.printf("%s_count %d\n", name, m.Latency.Count())
	return pw.err
}

type promWriter struct {
	w   io.Writer
	err error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
