package console

import (
	"net/http"

	"github.com/tiyin/tiyin/ports"
)

// client is one person across partners, reached by searching their PINFL: the path carries
// the PINFL's blind index, never the number.
func (c *Console) client(w http.ResponseWriter, r *http.Request) {
	rec, err := c.uc.Views.Client.Handle(r.Context(), session(r).Operator, r.PathValue("index"))
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "client", msg("Client"), struct {
		Record ports.ClientRecord
		Parts  []clientPart
	}{rec, []clientPart{
		{msg("Applications"), ports.ListApplications, rec.Applications}, {msg("Loans"), ports.ListLoans, rec.Loans},
		{msg("Transfers to cards"), ports.ListTransfers, rec.Transfers}, {msg("Repayment requests"), ports.ListRepayments, rec.Repayments},
		{msg("Cards issued"), ports.ListCards, rec.Cards},
	}})
}

// clientPart is one table of the client's page.
type clientPart struct {
	Title, Kind string
	Rows        []ports.ListRow
}
