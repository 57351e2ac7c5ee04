package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/tiyin/tiyin/client"
)

// A partner's backend pays a repayment: one call, repeated with the same envelope id while
// tiyin answers that it may succeed on a repeat, and a business refusal read by its code.
func ExampleDo() {
	c, err := client.NewClientWithResponses("https://tiyin.bank.uz", client.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+os.Getenv("TIYIN_KEY"))
			return nil
		}))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var reply *client.PayRepaymentReply
	err = client.Do(ctx, client.Retry{}, func(ctx context.Context, id client.UUID) error {
		reply, err = c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id, Params: client.PayRepaymentParams{
			LoanId: "2027000001", RequestId: os.Getenv("TIYIN_CHECK_ID"), PaymentType: client.PayRepaymentParamsPaymentTypeTERM,
			Amount: 500_000, DebitId: "DBT-1", ProcessingType: client.PayRepaymentParamsProcessingTypeUZCARD}})
		return client.Check(reply, err)
	})
	switch {
	case errors.Is(err, client.CodeRepaymentExpired):
		fmt.Println("check the loan again: the quote expired")
	case err != nil:
		fmt.Println("not paid:", err)
	default:
		fmt.Println(reply.JSON200.Result.Status)
	}
}

// A partner's webhook receiver checks each delivery's signature before it trusts the body.
func ExampleVerifyWebhook() {
	http.HandleFunc("/tiyin-events", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := client.VerifyWebhook(os.Getenv("TIYIN_WEBHOOK_SECRET"), body, r.Header, time.Now()); err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		// store the event by its id (ignore a repeat), act on it later, answer at once
		w.WriteHeader(http.StatusNoContent)
	})
}
