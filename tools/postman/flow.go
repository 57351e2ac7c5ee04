package main

// step is one call of the flow: an operation of the document, its params (JSON with {{variable}}
// placeholders), a pre-request script, a condition to ask again until it holds (for answers the
// bank gives later), and tests on its answer (r is the envelope's result).
type step struct {
	name, operation, params string
	before                  []string
	until                   string
	tests                   []string
}

type part struct {
	name, description string
	steps             []step
}

// clientData is the client's identity as pre-scoring and issue take it, the same both times.
const clientData = `{"pinfl": "31234567890123", "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
    "phone": "998901234567", "address": {"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
    "document": {"type": "PASSPORT", "series": "AA", "number": "1234567", "issuedBy": "Toshkent IIB",
      "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"}}`

func save(name, value string) string {
	return `pm.collectionVariables.set("` + name + `", ` + value + `);`
}

func expect(what, cond string) string {
	return `pm.test("` + what + `", () => pm.expect(` + cond + `, JSON.stringify(r)).to.be.true);`
}

// flow is the whole process, in the order a partner's backend walks it.
var flow = []part{
	{name: "1. Microloan", description: "Register, wait for pre-scoring, verify an offer, issue, wait for the loan.", steps: []step{
		{name: "Read the sandbox clock", operation: "advanceClock", params: `{"duration": "0s"}`,
			tests: []string{expect("the clock tells the time", `typeof r.now === "string"`)}},
		{name: "Register for pre-scoring", operation: "registerApplication",
			params: `{"externalId": "{{$guid}}", "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": ` + clientData + `}`,
			tests:  []string{expect("an application id", `typeof r.applicationId === "string"`), save("applicationId", "r.applicationId")}},
		{name: "Wait for pre-scoring", operation: "getApplication", params: `{"applicationId": "{{applicationId}}"}`,
			until: `r.status === "PENDING"`,
			tests: []string{expect("an offer range", `r.preScoreResult !== null && r.preScoreResult.amountLimit > 0`),
				save("percent", "r.preScoreResult.percent"), save("monthPeriod", "r.preScoreResult.monthPeriod")}},
		{name: "Verify an offer", operation: "verifyApplication",
			params: `{"applicationId": "{{applicationId}}", "amount": 300000000, "percent": {{percent}}, "monthPeriod": {{monthPeriod}}, "backupPhone": "998911112233"}`,
			tests:  []string{expect("no phone call needed below 1 000 000 000", `r.phoneCallRequired === false`)}},
		{name: "Issue", operation: "issueApplication", params: `{"applicationId": "{{applicationId}}", "clientData": ` + clientData + `}`},
		{name: "Wait for the loan", operation: "getApplication", params: `{"applicationId": "{{applicationId}}"}`,
			until: `r.status === "COMPLETED"`,
			tests: []string{expect("issued", `r.lastTask.name === "GET_LOAN_ISSUANCE_RESULT" && r.lastTask.status === "COMPLETED"`)}},
	}},
	{name: "2. Money to a card", description: "Send part of the loan to the client's card.", steps: []step{
		{name: "Create a transfer", operation: "createTransfer",
			before: []string{`pm.collectionVariables.set("transferExternalId", pm.variables.replaceIn("{{$guid}}"));`},
			params: `{"externalId": "{{transferExternalId}}", "applicationId": "{{applicationId}}", "pan": "8600123456789012", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 100000000}`,
			tests:  []string{expect("a transaction id", `typeof r.transactionId === "string"`), save("transactionId", "r.transactionId")}},
		{name: "Confirm the transfer", operation: "confirmTransfer", params: `{"externalId": "{{transferExternalId}}", "transactionId": "{{transactionId}}"}`,
			tests: []string{expect("the card was credited", `r.status === "SUCCESS"`)}},
		{name: "Check the transfer", operation: "checkTransfer", params: `{"externalId": "{{transferExternalId}}", "transactionId": "{{transactionId}}"}`,
			tests: []string{expect("SUCCESS", `r.status === "SUCCESS"`)}},
	}},
	{name: "3. Loan and repayment", description: "Move the clock for the contract number, read the loan, repay part of it.", steps: []step{
		{name: "Move the clock 31 minutes", operation: "advanceClock", params: `{"duration": "31m"}`},
		{name: "Wait for the contract number", operation: "getLoan", params: `{"applicationId": "{{applicationId}}"}`,
			until: `r.loanId !== null`,
			tests: []string{expect("the whole amount owed", `r.totalResidue === 300000000 && r.totalFine === 0`), save("loanId", "r.loanId")}},
		{name: "Schedule", operation: "getSchedule", params: `{"loanId": "{{loanId}}"}`,
			tests: []string{expect("one instalment a month", `r.schedule.length === Number(pm.collectionVariables.get("monthPeriod"))`)}},
		{name: "Check a repayment", operation: "checkRepayment", params: `{"loanId": "{{loanId}}"}`,
			tests: []string{expect("the five parts sum to the payoff", `r.mainDebtAmount + r.overdueDebtAmount + r.termInterestAmount + r.overdueInterestAmount + r.interestFineAmount === r.totalResidue`),
				save("repaymentRequestId", "r.requestId")}},
		{name: "Pay", operation: "payRepayment",
			params: `{"loanId": "{{loanId}}", "paymentType": "EARLY", "requestId": "{{repaymentRequestId}}", "debitId": "DBT-{{$guid}}", "amount": 50000000, "processingType": "UZCARD"}`,
			tests:  []string{expect("paid", `r.status === "SUCCESS"`)}},
		{name: "Repayment status", operation: "getRepayment", params: `{"requestId": "{{repaymentRequestId}}"}`,
			tests: []string{expect("SUCCESS with its transaction", `r.requestStatus === "SUCCESS" && r.transactionId !== null`)}},
		{name: "Payments", operation: "listPayments", params: `{"loanId": "{{loanId}}"}`,
			tests: []string{expect("the payment is listed", `r.payments.length === 1 && r.payments[0].totalRepaymentAmount === 50000000`)}},
	}},
	{name: "4. Cards", description: "Order a card from the bank, attach the client's own card with its SMS code, block it.", steps: []step{
		{name: "Order a card", operation: "orderCard",
			params: `{"externalId": "PM-{{$guid}}", "phoneNumber": "998901234567", "clientData": ` + clientData + `, "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true}`,
			tests:  []string{save("orderId", "r.orderId")}},
		{name: "Wait for the card", operation: "getCardOrder", params: `{"orderId": "{{orderId}}"}`,
			until: `r.order.status === "COMPLETED"`,
			tests: []string{expect("the card made", `r.card !== null && r.card.pan.includes("******")`)}},
		{name: "Attach the client's card", operation: "attachCard",
			before: []string{
				`const digits = n => Array.from({length: n}, () => Math.floor(Math.random() * 10)).join("");`,
				`pm.collectionVariables.set("attachPan", "860099" + digits(10));`,
				`pm.collectionVariables.set("attachPhone", "99893" + digits(7));`,
			},
			params: `{"pan": "{{attachPan}}", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "{{attachPhone}}"}`,
			tests:  []string{save("cardId", "r.cardId")}},
		{name: "Read the SMS code (sandbox outbox)", operation: "smsOutbox", params: `{"phoneNumber": "{{attachPhone}}"}`,
			tests: []string{expect("the code was sent", `r.messages.length > 0`), save("otpCode", "r.messages[0].code")}},
		{name: "Confirm with the code", operation: "confirmCard", params: `{"cardId": "{{cardId}}", "otpCode": "{{otpCode}}"}`},
		{name: "Card status", operation: "getCardStatus", params: `{"cardId": "{{cardId}}"}`,
			tests: []string{expect("ACTIVE", `r.status === "ACTIVE"`)}},
		{name: "Block the card", operation: "changeCardStatus", params: `{"cardId": "{{cardId}}", "status": "BLOCKED", "reason": "lost"}`,
			tests: []string{expect("BLOCKED", `r.status === "BLOCKED"`)}},
	}},
	{name: "5. Events", description: "Ask for a test event, and list what happened.", steps: []step{
		{name: "Send a test event", operation: "sendTestEvent", params: `{}`,
			tests: []string{save("testEventId", "r.eventId")}},
		{name: "List the events", operation: "listEvents", params: `{"afterSequence": 0, "limit": 100}`,
			until: `r.events.some(e => e.id === pm.collectionVariables.get("testEventId"))`,
			tests: []string{expect("numbered in order", `r.events.every((e, i) => i === 0 || e.sequence > r.events[i - 1].sequence)`)}},
	}},
}
