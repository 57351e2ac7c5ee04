package main

// step is one call of the flow: an operation of the document, its params (JSON with {{variable}}
// placeholders), a pre-request script, a condition to ask again until it holds (for answers the
// bank gives later), and tests on its answer (r is the envelope's result).
type step struct {
	name, operation, params string
	before                  []string
	until                   string
	tests                   []string
	// code is the error code the answer must carry (0: none, the answer is a success).
	code int
	// id replaces the envelope's fresh id, key the partner's key, and raw the whole body.
	id, key, raw string
}

type part struct {
	name, description string
	steps             []step
}

// clientData is the client's identity as pre-scoring and issue take it, the same both times.
var clientData = clientDataOf("31234567890123", "Karimov")

// clientDataOf is a client's identity with the PINFL (whose ending picks the sandbox's answer)
// and last name.
func clientDataOf(pinfl, lastName string) string {
	return `{"pinfl": "` + pinfl + `", "lastName": "` + lastName + `", "firstName": "Aziz", "birthDate": "1990-05-17",
    "phone": "998901234567", "address": {"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
    "document": {"type": "PASSPORT", "series": "AA", "number": "1234567", "issuedBy": "Toshkent IIB",
      "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"}}`
}

func save(name, value string) string {
	return `pm.collectionVariables.set("` + name + `", ` + value + `);`
}

func expect(what, cond string) string {
	return `pm.test("` + what + `", () => pm.expect(` + cond + `, JSON.stringify(r)).to.be.true);`
}

// flow is the whole process, in the order a partner's backend walks it.
var flow = append([]part{
	{name: "1. Microloan", description: "Register, wait for pre-scoring, verify an offer, issue, wait for the loan.", steps: []step{
		{name: "Read the sandbox clock", operation: "advanceClock", params: `{"duration": "0s"}`,
			tests: []string{expect("the clock tells the time", `typeof r.now === "string"`)}},
		{name: "Register for pre-scoring", operation: "registerApplication",
			before: []string{`pm.collectionVariables.set("applicationExternalId", pm.variables.replaceIn("{{$guid}}"));`},
			params: `{"externalId": "{{applicationExternalId}}", "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": ` + clientData + `}`,
			tests:  []string{expect("an application id", `typeof r.applicationId === "string"`), save("applicationId", "r.applicationId")}},
		{name: "Find it by your externalId (an applicationId lost with a timeout)", operation: "findApplication",
			params: `{"externalId": "{{applicationExternalId}}"}`,
			tests:  []string{expect("the application registered", `r.applicationId === pm.collectionVariables.get("applicationId")`)}},
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
			// A run that crosses midnight in Tashkent after the issue owes a day's interest too.
			tests: []string{expect("the whole amount owed, and at most a day's interest", `r.totalResidue >= 300000000 && r.totalResidue < 300300000 && r.totalFine === 0`), save("loanId", "r.loanId")}},
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
}, failures...)

// registered is the steps that register a client with the PINFL for pre-scoring and wait
// for its answer (status), keeping the application's id in the variable.
func registered(variable, pinfl, status string) []step {
	return []step{
		{name: "Register " + pinfl, operation: "registerApplication",
			params: `{"externalId": "{{$guid}}", "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": ` + clientDataOf(pinfl, "Karimov") + `}`,
			tests:  []string{save(variable, "r.applicationId")}},
		{name: "Wait for pre-scoring of " + pinfl, operation: "getApplication", params: `{"applicationId": "{{` + variable + `}}"}`,
			until: `r.status === "` + status + `"`},
	}
}

// verified is the step that verifies the application's offer (the first pre-scoring's range).
func verified(variable string) step {
	return step{name: "Verify the offer of " + variable, operation: "verifyApplication",
		params: `{"applicationId": "{{` + variable + `}}", "amount": 300000000, "percent": {{percent}}, "monthPeriod": {{monthPeriod}}, "backupPhone": "998911112233"}`}
}

// advance moves the sandbox clock by d before the request (each time it is asked again).
func advance(d string) string {
	return `pm.sendRequest({url: pm.variables.replaceIn("{{baseUrl}}/sandbox/clock/advance"), method: "POST", ` +
		`header: {"Content-Type": "application/json", "Authorization": "Bearer " + pm.variables.replaceIn("{{apiKey}}")}, ` +
		`body: {mode: "raw", raw: JSON.stringify({id: pm.variables.replaceIn("{{$guid}}"), params: {duration: "` + d + `"}})}});`
}

// attached is the steps that attach a new card (its PAN, phone, id and SMS code in variables
// named after prefix).
func attached(prefix string) []step {
	return []step{
		{name: "Attach a card (" + prefix + ")", operation: "attachCard",
			before: []string{
				`const digits = n => Array.from({length: n}, () => Math.floor(Math.random() * 10)).join("");`,
				`pm.collectionVariables.set("` + prefix + `Pan", "860099" + digits(10));`,
				`pm.collectionVariables.set("` + prefix + `Phone", "99893" + digits(7));`,
			},
			params: `{"pan": "{{` + prefix + `Pan}}", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "{{` + prefix + `Phone}}"}`,
			tests:  []string{save(prefix+"Id", "r.cardId")}},
		{name: "Read its SMS code (" + prefix + ")", operation: "smsOutbox", params: `{"phoneNumber": "{{` + prefix + `Phone}}"}`,
			tests: []string{save(prefix+"Otp", "r.messages[0].code")}},
	}
}

// none is an id nothing has.
const none = "01a2ffff-ffff-7fff-bfff-ffffffffffff"

// failures are the answers a partner's backend must handle: every error code a partner can
// meet, each provoked and asserted; the last four are an application's lastTask.errorCode.
var failures = []part{
	{name: "6. What goes wrong", description: "Every error code a partner can meet, each provoked on the sandbox and asserted.", steps: concat(
		[]step{
			{name: "2: a wrong key", operation: "getApplication", params: `{"applicationId": "{{applicationId}}"}`, key: "not-the-key-0123456789", code: 2},
			{name: "4: a field that fails validation", operation: "registerApplication",
				params: `{"externalId": "{{$guid}}", "isAgreementAccepted": true, "phoneNumber": "12345", "clientData": ` + clientData + `}`, code: 4},
			{name: "5: a body that is not JSON", operation: "getApplication", raw: `{"id": `, code: 5},
			{name: "A write with an id", operation: "advanceClock", params: `{"duration": "0s"}`,
				before: []string{`pm.collectionVariables.set("reusedId", pm.variables.replaceIn("{{$guid}}"));`}, id: "{{reusedId}}"},
			{name: "8: the same id, other params", operation: "advanceClock", params: `{"duration": "1s"}`, id: "{{reusedId}}", code: 8},
			{name: "1001: an application nobody has", operation: "getApplication", params: `{"applicationId": "` + none + `"}`, code: 1001},
			{name: "1002: verify a completed application", operation: "verifyApplication",
				params: `{"applicationId": "{{applicationId}}", "amount": 300000000, "percent": {{percent}}, "monthPeriod": {{monthPeriod}}, "backupPhone": "998911112233"}`, code: 1002},
		},
		registered("secondId", "31234567890123", "PENDING"),
		[]step{
			{name: "1004: an offer above the range", operation: "verifyApplication",
				params: `{"applicationId": "{{secondId}}", "amount": 6000000000, "percent": {{percent}}, "monthPeriod": {{monthPeriod}}, "backupPhone": "998911112233"}`, code: 1004},
			verified("secondId"),
			{name: "1013: the loan of an application not issued", operation: "getLoan", params: `{"applicationId": "{{secondId}}"}`, code: 1013},
			{name: "1005: issue with other clientData", operation: "issueApplication",
				params: `{"applicationId": "{{secondId}}", "clientData": ` + clientDataOf("31234567890123", "Other") + `}`, code: 1005},
			{name: "1003: the client cancels after verification", operation: "cancelApplication",
				params: `{"applicationId": "{{secondId}}", "initiator": "CLIENT"}`, code: 1003},
			{name: "1012: a loan nobody has", operation: "getSchedule", params: `{"loanId": "999999999999"}`, code: 1012},
			{name: "1014: a transfer above what is on the account", operation: "createTransfer",
				params: `{"externalId": "{{$guid}}", "applicationId": "{{applicationId}}", "pan": "8600123456789012", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 250000000}`, code: 1014},
			{name: "1015: a transfer nobody has", operation: "checkTransfer", params: `{"externalId": "{{$guid}}", "transactionId": "` + none + `"}`, code: 1015},
			{name: "1016: confirm a transfer already credited", operation: "confirmTransfer",
				params: `{"externalId": "{{transferExternalId}}", "transactionId": "{{transactionId}}"}`, code: 1016},
			{name: "1011: an externalId used for another transfer", operation: "createTransfer",
				params: `{"externalId": "{{transferExternalId}}", "applicationId": "{{applicationId}}", "pan": "8600123456789012", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 1000}`, code: 1011},
			{name: "Check a repayment to refuse", operation: "checkRepayment", params: `{"loanId": "{{loanId}}"}`,
				tests: []string{save("refusedRequestId", "r.requestId")}},
			{name: "1019: an amount above the payoff", operation: "payRepayment",
				params: `{"loanId": "{{loanId}}", "paymentType": "EARLY", "requestId": "{{refusedRequestId}}", "debitId": "DBT-{{$guid}}", "amount": 999999999999, "processingType": "UZCARD"}`, code: 1019},
			{name: "1020: a debit the network does not know", operation: "payRepayment",
				params: `{"loanId": "{{loanId}}", "paymentType": "EARLY", "requestId": "{{refusedRequestId}}", "debitId": "FAIL-{{$guid}}", "amount": 1000, "processingType": "UZCARD"}`, code: 1020},
			{name: "1017: a repayment request nobody has", operation: "getRepayment", params: `{"requestId": "` + none + `"}`, code: 1017},
			{name: "1021: a card order nobody has", operation: "getCardOrder", params: `{"orderId": "` + none + `"}`, code: 1021},
			{name: "1007: a card nobody has", operation: "getCardStatus", params: `{"cardId": "` + none + `"}`, code: 1007},
			{name: "1006: a card the SMS cannot reach", operation: "attachCard",
				params: `{"pan": "8600000000000006", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998935550006"}`, code: 1006},
			{name: "1023: a card the network blocked", operation: "attachCard",
				params: `{"pan": "9860000000000002", "expiry": "3012", "processingType": "HUMO", "phoneNumber": "998935550002"}`, code: 1023},
		},
		attached("card2"),
		[]step{
			{name: "1022: activate a card waiting for its code", operation: "changeCardStatus",
				params: `{"cardId": "{{card2Id}}", "status": "ACTIVE", "reason": "try"}`, code: 1022},
			{name: "1009: a wrong SMS code", operation: "confirmCard",
				before: []string{`const c = pm.collectionVariables.get("card2Otp"); pm.collectionVariables.set("wrongOtp", c.slice(0, -1) + ((Number(c.slice(-1)) + 1) % 10));`},
				params: `{"cardId": "{{card2Id}}", "otpCode": "{{wrongOtp}}"}`, code: 1009},
			{name: "The right code", operation: "confirmCard", params: `{"cardId": "{{card2Id}}", "otpCode": "{{card2Otp}}"}`},
			{name: "1010: attach a card attached already", operation: "attachCard",
				params: `{"pan": "{{card2Pan}}", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "{{card2Phone}}"}`, code: 1010},
		},
		attached("card3"),
		[]step{
			{name: "1008: a code after it expired", operation: "confirmCard", before: []string{advance("4m")},
				params: `{"cardId": "{{card3Id}}", "otpCode": "{{card3Otp}}"}`, code: 1008},
			{name: "Check a repayment to let expire", operation: "checkRepayment", params: `{"loanId": "{{loanId}}"}`,
				tests: []string{save("expiringRequestId", "r.requestId")}},
			{name: "1018: pay after the quote expired", operation: "payRepayment", before: []string{advance("31m")},
				params: `{"loanId": "{{loanId}}", "paymentType": "EARLY", "requestId": "{{expiringRequestId}}", "debitId": "DBT-{{$guid}}", "amount": 1000, "processingType": "UZCARD"}`, code: 1018},
		},
		registered("declinedId", "31234567890000", "REJECTED"),
		[]step{
			{name: "1024: pre-scoring declined", operation: "getApplication", params: `{"applicationId": "{{declinedId}}"}`,
				tests: []string{expect("lastTask.errorCode 1024", `r.lastTask.errorCode === 1024`)}},
		},
		registered("postId", "31234567892222", "PENDING"),
		[]step{verified("postId"),
			{name: "1025: post-scoring declined", operation: "getApplication", params: `{"applicationId": "{{postId}}"}`,
				tests: []string{expect("REJECTED with lastTask.errorCode 1025", `r.status === "REJECTED" && r.lastTask.errorCode === 1025`)}},
		},
		registered("refusedId", "31234567893333", "PENDING"),
		[]step{verified("refusedId"),
			{name: "Issue (core banking refuses)", operation: "issueApplication", params: `{"applicationId": "{{refusedId}}", "clientData": ` + clientDataOf("31234567893333", "Karimov") + `}`},
			{name: "1026: core banking refused the issuance", operation: "getApplication", params: `{"applicationId": "{{refusedId}}"}`,
				until: `r.status === "REJECTED"`, tests: []string{expect("lastTask.errorCode 1026", `r.lastTask.errorCode === 1026`)}},
		},
		registered("downId", "31234567894444", "PENDING"),
		[]step{verified("downId"),
			{name: "Issue (core banking cannot be reached)", operation: "issueApplication", params: `{"applicationId": "{{downId}}", "clientData": ` + clientDataOf("31234567894444", "Karimov") + `}`},
			{name: "1027: the stage failed after its retries", operation: "getApplication", before: []string{advance("2m")},
				params: `{"applicationId": "{{downId}}"}`,
				until:  `r.status === "FAILED"`, tests: []string{expect("lastTask.errorCode 1027", `r.lastTask.errorCode === 1027`)}},
		},
	)},
}

func concat(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
