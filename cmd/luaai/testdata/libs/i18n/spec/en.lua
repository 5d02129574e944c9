return {
  en = {
    hello = 'Hello!',
    balance = 'Your account balance is %{value}.'
  }
}
