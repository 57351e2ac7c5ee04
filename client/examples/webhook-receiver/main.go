// Command webhook-receiver is a partner's receiver of tiyin's webhook: it checks each
// delivery's signature, decodes the event, deduplicates it by id and answers at once; at
// start it asks the events list for what came after the last event it processed, so nothing
// sent during an outage is missed.
//
//	TIYIN_URL=… TIYIN_KEY=… TIYIN_WEBHOOK_SECRET=whsec_… go run ./examples/webhook-receiver
package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/tiyin/tiyin/client"
)

// receiver keeps what it processed in memory; a real one keeps it in its database, in the
// same transaction as the work the event causes.
type receiver struct {
	mu   sync.Mutex
	seen map[client.UUID]bool
	last int64 // the highest sequence processed
}

func main() {
	c, err := client.New(os.Getenv("TIYIN_URL"), os.Getenv("TIYIN_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	r := &receiver{seen: map[client.UUID]bool{}}
	if err := r.catchUp(context.Background(), c); err != nil {
		log.Fatal(err)
	}
	secret := os.Getenv("TIYIN_WEBHOOK_SECRET")
	http.HandleFunc("POST /tiyin-events", func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		if err != nil || client.VerifyWebhook(secret, body, req.Header, time.Now()) != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var ev client.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		r.process(ev)
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Addr: ":8090", ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// catchUp lists the events after the last one processed, page by page.
func (r *receiver) catchUp(ctx context.Context, c *client.Client) error {
	for {
		page, err := c.Events.List(ctx, client.ListEventsParams{AfterSequence: r.last})
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			r.process(ev)
		}
		r.last = page.NextSequence
		if !page.HasMore {
			return nil
		}
	}
}

func (r *receiver) process(ev client.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[ev.ID] {
		return
	}
	r.seen[ev.ID] = true
	r.last = max(r.last, ev.Sequence)
	data, err := ev.Decode()
	if err != nil {
		log.Printf("event %d: %v", ev.Sequence, err)
		return
	}
	switch d := data.(type) {
	case *client.ApplicationStatusChanged:
		log.Printf("application %s is %s (%s/%s)", d.ApplicationID, d.Status, d.LastTask.Name, d.LastTask.Status)
	case *client.LoanContractAssigned:
		log.Printf("application %s: loan %s", d.ApplicationID, d.LoanID)
	case *client.RepaymentStatusChanged:
		log.Printf("loan %s: %d tiyin paid, %s (closed: %v)", d.LoanID, d.Amount, d.Status, d.LoanClosed)
	default:
		log.Printf("event %d: %s", ev.Sequence, ev.Type)
	}
}
